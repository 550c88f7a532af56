// What relaypay_build_info says: the package version, the git commit the files came from (when they came from a
// checkout; an installed package has none and says "unknown") and Node's version. Read once, from files only: no
// git process at start.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export interface BuildInfo {
  version: string
  commit: string
  node_version: string
}

// package.json sits three levels above the compiled file (build/src/metrics/build-info.js).
const packageRoot = fileURLToPath(new URL('../../../', import.meta.url))

export function readBuildInfo(root = packageRoot): BuildInfo {
  return { version: packageVersion(root), commit: gitCommit(root) ?? 'unknown', node_version: process.versions.node }
}

function packageVersion(root: string): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

/** HEAD's commit: `.git` is a directory, or a file naming one (a worktree); a branch's ref is loose or packed. */
function gitCommit(root: string): string | undefined {
  try {
    let gitDir = path.join(root, '.git')
    if (fs.statSync(gitDir).isFile()) gitDir = path.resolve(root, read(gitDir).replace(/^gitdir:\s*/, ''))
    const head = read(path.join(gitDir, 'HEAD'))
    if (/^[0-9a-f]{40}$/.test(head)) return head
    const ref = /^ref:\s*(\S+)$/.exec(head)?.[1]
    if (!ref) return undefined
    // A worktree keeps its HEAD but shares refs with the main checkout (its `commondir`).
    const common = fs.existsSync(path.join(gitDir, 'commondir')) ? path.resolve(gitDir, read(path.join(gitDir, 'commondir'))) : gitDir
    for (const dir of [gitDir, common]) {
      const file = path.join(dir, ref)
      if (fs.existsSync(file)) return read(file)
    }
    const packed = read(path.join(common, 'packed-refs'))
    return packed.split('\n').find(line => line.endsWith(` ${ref}`))?.slice(0, 40)
  } catch {
    return undefined
  }
}

function read(file: string): string {
  return fs.readFileSync(file, 'utf8').trim()
}
