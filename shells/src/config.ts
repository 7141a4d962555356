// Where the bus and the store are, from the environment, with this machine's defaults.
export const natsUrl = (): string => process.env["NATS_URL"] ?? "nats://127.0.0.1:4222"
export const databaseUrl = (): string => process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"

/** A prefix for every subject and stream this mesh uses, so several meshes (or test runs) share one bus. */
export const busPrefix = (): string => process.env["MESH_BUS_PREFIX"] ?? ""
/** The PostgreSQL schema the controller keeps its records in. */
export const storeSchema = (): string => process.env["MESH_STORE_SCHEMA"] ?? "mesh"

/** A URL as it may be printed: any password in it replaced. */
export const redactUrl = (url: string): string => {
  try {
    const u = new URL(url)
    if (u.password !== "") u.password = "***"
    return u.toString()
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@")
  }
}
