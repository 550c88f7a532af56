// A small process that seeks the active-daemon lock and reports on stdout, one JSON line each: {"held": epoch} once
// it holds it, {"lost": reason} when it is told to stop (then it exits). The active-lock test SIGKILLs and SIGSTOPs
// it. Arguments: the database URL.
import { acquireActiveLock } from '../../src/store/index.js'

const url = process.argv[2]!
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`)
const lease = await acquireActiveLock({ url, holder: `holder pid ${process.pid}` })
say({ held: lease.epoch })
say({ lost: await lease.lost })
process.exit(0)
