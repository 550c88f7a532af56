// What this copy of relaypay is: the package version, and the commit when it runs from a git checkout (so a bug
// report or a NIP-11 document names the exact code). Read on demand: nothing here runs at start.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The package root: three levels above the compiled file (build/src/version/index.js). */
const packageRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..')

/** package.json's version, or 'unknown' when the file is missing or unreadable (the version is informative only). */
export function packageVersion(): string {
  try {
    const { version } = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version?: unknown }
    return typeof version === 'string' ? version : 'unknown'
  } catch {
    return 'unknown'
  }
}

/**
 * The short hash of the checked-out commit, or undefined when the package root is not a git checkout (its own
 * `.git`, a directory or a worktree's file: an enclosing repository's commit would not be ours) or git is absent.
 */
export function gitCommit(): string | undefined {
  if (!fs.existsSync(path.join(packageRoot, '.git'))) return undefined
  try {
    const hash = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: packageRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    }).trim()
    return /^[0-9a-f]{4,64}$/.test(hash) ? hash : undefined
  } catch {
    return undefined
  }
}

/** `relaypay 0.1.0 (commit 1a2b3c4)`, or `relaypay 0.1.0` outside a git checkout. */
export function versionLine(): string {
  const commit = gitCommit()
  return `relaypay ${packageVersion()}${commit ? ` (commit ${commit})` : ''}`
}
