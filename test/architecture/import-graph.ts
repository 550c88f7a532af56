// The import graph of the daemon's source, read with the TypeScript compiler's own scanner and module resolution
// (what `tsc` itself would follow: `import`, `import type`, `export … from`, `import()` with a literal), and the
// rules of docs/architecture.md checked against it: rooms, doors, layers and cycles.
import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

export interface ImportArrow {
  /** Importing file, relative to the repository root with forward slashes. */
  from: string
  /** Imported file, likewise. */
  to: string
}

const compilerOptions: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  jsx: ts.JsxEmit.Preserve,
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(item => {
    const full = path.join(dir, item.name)
    if (item.isDirectory()) return sourceFiles(full)
    return /\.tsx?$/.test(item.name) && !item.name.endsWith('.d.ts') ? [full] : []
  })
}

/** Every arrow between two files of the repository that starts in one of `folders` (e.g. src, bin). */
export function readImportGraph(repoRoot: string, folders: readonly string[]): ImportArrow[] {
  const host = ts.createCompilerHost(compilerOptions)
  const relative = (file: string) => path.relative(repoRoot, file).split(path.sep).join('/')
  const arrows: ImportArrow[] = []
  for (const file of folders.flatMap(folder => sourceFiles(path.join(repoRoot, folder)))) {
    const scanned = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true)
    for (const imported of scanned.importedFiles) {
      // Packages are outside the house; a stylesheet the console's bundler inlines is no module.
      if (!imported.fileName.startsWith('.') || /\.css$/.test(imported.fileName)) continue
      const resolved = ts.resolveModuleName(imported.fileName, file, compilerOptions, host).resolvedModule
      if (!resolved) throw new Error(`${relative(file)}: cannot resolve ${imported.fileName}`)
      arrows.push({ from: relative(file), to: relative(resolved.resolvedFileName) })
    }
  }
  return arrows
}

/** How the house is divided: which room a file belongs to, each room's door, each room's layer. */
export interface Plan {
  roomOf(file: string): string
  /** The files others may import from this room. */
  isDoor(room: string, file: string): boolean
  /** Higher layers may import lower ones; a room imports only its own layer or below. */
  layerOf(room: string): number
  layerName(layer: number): string
}

export interface Exception {
  /** A file, or a folder ending in '/', that the importing file lies in. */
  from: string
  /** Likewise for the imported file. */
  to: string
  /** Why this arrow is tolerated, and what will remove it. */
  why: string
}

export interface Finding {
  rule: 'cycle' | 'layer' | 'door'
  text: string
  arrows: ImportArrow[]
}

const within = (file: string, place: string) => (place.endsWith('/') ? file.startsWith(place) : file === place)

/**
 * The arrows that break a rule: an import of a higher layer (a domain importing a transport, say), an import past
 * another room's door, and every cycle between rooms. Arrows inside one room are the room's own business.
 * `exceptions` remove single arrows from the first two; a cycle has no exception.
 */
export function checkImports(arrows: readonly ImportArrow[], plan: Plan, exceptions: readonly Exception[] = []): {
  findings: Finding[]
  unusedExceptions: Exception[]
} {
  const used = new Set<Exception>()
  const excused = (arrow: ImportArrow) => {
    const match = exceptions.find(e => within(arrow.from, e.from) && within(arrow.to, e.to))
    if (match) used.add(match)
    return match !== undefined
  }
  const findings: Finding[] = []
  const between = new Map<string, Map<string, ImportArrow[]>>()
  for (const arrow of arrows) {
    const from = plan.roomOf(arrow.from)
    const to = plan.roomOf(arrow.to)
    if (from === to) continue
    const targets = between.get(from) ?? new Map<string, ImportArrow[]>()
    between.set(from, targets)
    targets.set(to, [...(targets.get(to) ?? []), arrow])
    const layerFrom = plan.layerOf(from)
    const layerTo = plan.layerOf(to)
    if (layerTo > layerFrom && !excused(arrow)) {
      findings.push({
        rule: 'layer',
        text: `${arrow.from} (${plan.layerName(layerFrom)}) imports ${arrow.to} (${plan.layerName(layerTo)}): imports point down`,
        arrows: [arrow],
      })
    } else if (!plan.isDoor(to, arrow.to) && !excused(arrow)) {
      findings.push({ rule: 'door', text: `${arrow.from} imports ${arrow.to} past the door of ${to}`, arrows: [arrow] })
    }
  }
  for (const cycle of roomCycles(between)) {
    const tying = cycle.flatMap(a => cycle.flatMap(b => between.get(a)?.get(b) ?? []))
    findings.push({
      rule: 'cycle',
      text: `rooms import each other in a circle: ${cycle.join(' ↔ ')} (${tying.map(a => `${a.from} → ${a.to}`).join(', ')})`,
      arrows: tying,
    })
  }
  return { findings, unusedExceptions: exceptions.filter(e => !used.has(e)) }
}

/** Strongly connected groups of more than one room (Tarjan). */
function roomCycles(between: Map<string, Map<string, ImportArrow[]>>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  let next = 0
  const visit = (room: string) => {
    index.set(room, next)
    low.set(room, next)
    next += 1
    stack.push(room)
    onStack.add(room)
    for (const target of between.get(room)?.keys() ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(room, Math.min(low.get(room)!, low.get(target)!))
      } else if (onStack.has(target)) {
        low.set(room, Math.min(low.get(room)!, index.get(target)!))
      }
    }
    if (low.get(room) === index.get(room)) {
      const group: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        group.push(member)
      } while (member !== room)
      if (group.length > 1) cycles.push(group.sort())
    }
  }
  for (const room of between.keys()) if (!index.has(room)) visit(room)
  return cycles
}
