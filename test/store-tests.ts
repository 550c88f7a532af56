// Which test files the store switch changes (RELAYPAY_TEST_STORE=postgres, test/support/daemon.ts): those that start
// a daemon through the harness, directly or through a helper that does, and those that read the switch themselves.
// The PostgreSQL half of a run (`run.js --store`) runs exactly these: any other file does the same thing on either
// setting, so running it twice proves nothing. Contract tests on both engines (test/support/sql-engines.ts) run on
// PostgreSQL whenever RELAYPAY_TEST_POSTGRES_URL is set, in the first half already.
//
// Found by reading the compiled files' static imports (tsc drops type-only ones): a module uses the switch when its
// text names it, when it imports from daemon.js one of the functions that apply it, or when it imports any name
// from a module that uses the switch. A file that sets the switch itself does not: one that turns it off
// (`delete process.env.RELAYPAY_TEST_STORE`: its daemons are on SQLite, or on the PostgreSQL they name, by its
// subject) or one that imports a module of the test tree which sets it (the chaos campaign's database faults start a
// server of their own and put every daemon on it): either runs the same in both halves.
import fs from 'node:fs'
import path from 'node:path'

/** What daemon.js exports that applies the switch; tempDataDir, cliPath and the like do not. */
const switchFunctions = new Set(['startDaemon', 'storeEnv'])
const harness = path.join('support', 'daemon.js')

interface Imported {
  file: string
  /** The names imported; undefined for a namespace or side-effect import (everything counts). */
  names?: string[]
}

function importsOf(file: string): Imported[] {
  const text = fs.readFileSync(file, 'utf8')
  const found: Imported[] = []
  const statement = /(?:^|\n)\s*(?:import|export)\s*([^'";]*?)\s*(?:from\s*)?['"](\.{1,2}\/[^'"]+)['"]/g
  for (const match of text.matchAll(statement)) {
    const clause = match[1]!
    const target = path.resolve(path.dirname(file), match[2]!)
    const braces = /^\{([\s\S]*)\}$/.exec(clause.trim())
    const names = braces ? braces[1]!.split(',').map(name => name.trim().split(/\s+as\s+/)[0]!).filter(Boolean) : undefined
    found.push({ file: target, names })
  }
  return found
}

/** Whether `file` (a compiled module under `testRoot`) uses the store switch, with a memo over the whole scan. */
function usesSwitch(file: string, testRoot: string, memo: Map<string, boolean>): boolean {
  const known = memo.get(file)
  if (known !== undefined) return known
  memo.set(file, false) // a cycle adds nothing
  const text = fs.readFileSync(file, 'utf8')
  let uses = text.includes('RELAYPAY_TEST_STORE') && path.relative(testRoot, file) !== harness
  for (const imported of uses ? [] : importsOf(file)) {
    // Only the test tree's own modules: src/ never reads the switch.
    if (!imported.file.startsWith(testRoot + path.sep) || !fs.existsSync(imported.file)) continue
    if (path.relative(testRoot, imported.file) === harness) {
      uses = imported.names === undefined || imported.names.some(name => switchFunctions.has(name))
    } else {
      uses = usesSwitch(imported.file, testRoot, memo)
    }
    if (uses) break
  }
  memo.set(file, uses)
  return uses
}

const setsSwitch = (text: string) => /process\.env\.RELAYPAY_TEST_STORE\s*=[^=]|delete process\.env\.RELAYPAY_TEST_STORE/.test(text)

/** Whether `file` sets the switch itself, or imports a module of the test tree that does. */
function fixesSwitch(file: string, testRoot: string): boolean {
  if (setsSwitch(fs.readFileSync(file, 'utf8'))) return true
  return importsOf(file).some(
    imported =>
      imported.file.startsWith(testRoot + path.sep) &&
      path.relative(testRoot, imported.file) !== harness &&
      fs.existsSync(imported.file) &&
      setsSwitch(fs.readFileSync(imported.file, 'utf8')),
  )
}

/** The test files among `files` (compiled, under `testRoot`) that the store switch changes. */
export function storeTests(files: readonly string[], testRoot: string): string[] {
  const memo = new Map<string, boolean>()
  return files.filter(file => !fixesSwitch(file, testRoot) && usesSwitch(file, testRoot, memo))
}
