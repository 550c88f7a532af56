// The log scan for keys written twice in one JSON line (pino writes a child's binding again when a second child or
// a call binds the same key; readers then see one value or the other depending on their parser). JSON.parse keeps
// only the last of two equal keys, so this walks each line's tokens itself.

import type { ChildProcess } from 'node:child_process'

/** The first key that occurs twice in one object of `line`, with its path; undefined when none does or the line is not JSON. */
export function duplicateKeyIn(line: string): string | undefined {
  const frames: { keys: Set<string> | null; path: string; expectKey: boolean }[] = []
  let lastKey = ''
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    const top = frames[frames.length - 1]
    if (c === '"') {
      const end = stringEnd(line, i)
      if (end < 0) return undefined
      if (top?.keys && top.expectKey) {
        let key: string
        try {
          key = JSON.parse(line.slice(i, end + 1)) as string
        } catch {
          return undefined
        }
        if (top.keys.has(key)) return top.path ? `${top.path}.${key}` : key
        top.keys.add(key)
        top.expectKey = false
        lastKey = key
      }
      i = end
    } else if (c === '{' || c === '[') {
      const path = top?.keys ? (top.path ? `${top.path}.${lastKey}` : lastKey) : (top?.path ?? '')
      frames.push({ keys: c === '{' ? new Set() : null, path, expectKey: c === '{' })
    } else if (c === '}' || c === ']') {
      frames.pop()
    } else if (c === ',' && top?.keys) {
      top.expectKey = true
    }
  }
  return undefined
}

/** Index of the quote closing the string that opens at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (text[i] === '"') return i
  }
  return -1
}

/** Every JSON log line of `output` that holds a key twice, described with the key and the line's start. */
export function duplicateKeyLines(output: string): string[] {
  const found: string[] = []
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue
    const key = duplicateKeyIn(line)
    if (key !== undefined) found.push(`key "${key}" appears twice in: ${line.slice(0, 160)}`)
  }
  return found
}

/**
 * Scans what a relaypay process spawned outside startDaemon (a standalone relay, a start the test drives itself)
 * writes, as startDaemon scans its daemons: once the process has closed its output, or when this test process exits
 * first. A key written twice is printed and fails the test file through its exit code.
 */
export function scanLogKeysOf(child: ChildProcess, label: string): void {
  let output = ''
  child.stdout?.on('data', chunk => (output += chunk))
  child.stderr?.on('data', chunk => (output += chunk))
  let scanned = false
  const scan = () => {
    if (scanned) return
    scanned = true
    process.off('exit', scan)
    const found = duplicateKeyLines(output)
    if (found.length === 0) return
    process.stderr.write(`${label} logged a key twice:\n${found.join('\n')}\n`)
    process.exitCode = 1
  }
  child.once('close', scan)
  process.on('exit', scan)
}
