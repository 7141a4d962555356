// A controller acts only when its role can end another controller's sessions (issue 40): the fence's
// `pg_terminate_backend` needs `pg_signal_backend` or a superuser, and nothing else ends a holder
// paused mid-statement. The refusal is one line naming the grant.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fencingRefused } from "@mesh-core/core/lease/fence"

describe("fencingRefused", () => {
  it("refuses exactly a role that is neither a superuser nor a member of pg_signal_backend, in one line naming the grant for it", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.boolean(), fc.boolean(), (grantee, superuser, signalBackend) => {
        const refused = fencingRefused({ grantee, superuser, signalBackend })
        if (superuser || signalBackend) {
          expect(refused).toBeUndefined()
          return
        }
        expect(refused).toBeDefined()
        expect(refused!.endsWith(`: GRANT pg_signal_backend TO ${grantee};`)).toBe(true)
        expect(refused).toContain(`role ${grantee} cannot end another controller's sessions`)
        if (!grantee.includes("\n")) expect(refused).not.toContain("\n")
      }),
    )
  })
})
