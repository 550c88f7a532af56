// node-postgres, loaded on first use. Through the store's door every daemon start and every CLI command would
// otherwise load the driver (~55 ms here) although nothing runs on PostgreSQL until a PostgreSQL store is opened.
import { createRequire } from 'node:module'
import type Pg from 'pg'

let driver: typeof Pg | undefined

export function pgDriver(): typeof Pg {
  return (driver ??= createRequire(import.meta.url)('pg') as typeof Pg)
}
