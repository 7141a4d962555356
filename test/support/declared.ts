// A composition's declaration as the machine reads it: its body parsed. The core keeps a declaration
// only as the bytes it sends (issue 41), so what tests say of its resources and user list they say of
// those bytes.
import type { JsonObject } from "@mesh-core/core/json"

export interface Declared {
  readonly mesh: string
  readonly node: string
  readonly sequence: number
  readonly resources: ReadonlyArray<{
    readonly module: string
    readonly build: string
    readonly config: JsonObject
    readonly receives: Readonly<Record<string, ReadonlyArray<string>>>
  }>
  readonly busUsers?: ReadonlyArray<{
    readonly user: string
    readonly publish: ReadonlyArray<string>
    readonly subscribe: ReadonlyArray<string>
  }>
}

export const declared = (c: { readonly body: string }): Declared => JSON.parse(c.body)

/** The bus's user list an index composed, as the holder's declaration carries it. */
export const usersOf = (userList: { readonly ok: true; readonly text: string }): NonNullable<Declared["busUsers"]> =>
  userList.text === "" ? [] : JSON.parse(userList.text)
