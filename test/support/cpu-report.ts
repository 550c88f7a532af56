// Loaded by the test runner into each test file's process (node --import): at exit, one line with the CPU time the
// file cost, its own and that of every process it started and waited for (daemons, relays, browsers, a regtest
// network's btcd and LNDs), so that the runner can say where the suite's CPU goes. On two cores the suite is bound
// by CPU, not by waiting: its length follows these figures. Linux only (/proc); elsewhere it prints nothing.
import fs from 'node:fs'

/** Clock ticks per second of /proc's times: USER_HZ, 100 on every Linux architecture Node runs on. */
const ticksPerSecond = 100

process.once('exit', () => {
  let stat: string
  try {
    stat = fs.readFileSync('/proc/self/stat', 'utf8')
  } catch {
    return
  }
  // After the command name in parentheses: state is field 3; utime, stime, cutime and cstime are fields 14–17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0)
  if (Number.isFinite(ticks)) process.stderr.write(`\n[cpu] ${Math.round((ticks * 1000) / ticksPerSecond)} ms\n`)
})
