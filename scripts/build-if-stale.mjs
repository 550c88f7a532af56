// Runs the build only when the build is missing or older than a source: `npm start` (and `npm run regtest`) start
// in a second when nothing changed instead of compiling everything again. The build writes build/.build-stamp as its
// last step, so a build that failed half-way is never taken for current. Plain JavaScript: it runs before any build
// exists. `--check` only says whether the build is current (exit 0) or names a newer source (exit 1).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const root = process.cwd()
const stamp = path.join(root, 'build', '.build-stamp')
/** What the build reads: its sources and the settings that shape it. */
const sources = ['src', 'bin', 'schema', 'bench', 'test', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json']

/** The first source newer than the stamp, or undefined when the build is current. */
function newerSource(since) {
  const walk = file => {
    let stat
    try {
      stat = fs.statSync(file)
    } catch {
      return undefined // a source this checkout does not have
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(file)) {
        const found = walk(path.join(file, name))
        if (found) return found
      }
      return undefined
    }
    return stat.mtimeMs > since ? file : undefined
  }
  for (const source of sources) {
    const found = walk(path.join(root, source))
    if (found) return path.relative(root, found)
  }
  return undefined
}

const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : undefined
const stale = built === undefined ? 'no build yet' : newerSource(built)
if (process.argv.includes('--check')) {
  process.stdout.write(stale ? `stale: ${stale}\n` : 'current\n')
  process.exit(stale ? 1 : 0)
}
if (stale) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const result = spawnSync(npm, ['run', 'build', '--silent'], { stdio: 'inherit' })
  process.exit(result.status ?? 1)
}
