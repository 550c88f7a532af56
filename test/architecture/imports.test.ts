// Imports point down (docs/architecture.md): no room imports a room of a higher layer (no domain imports a
// transport), no room imports another room's files past its index.ts, no two rooms import each other, however
// far round, and no files do either, inside a room or across. The graph is the one the TypeScript compiler resolves from src/ and bin/.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { repoRoot } from '../support/paths.js'
import { checkImports, readImportGraph, type Exception, type ImportArrow } from './import-graph.js'
import { plan } from './rooms.js'

const test = suite('architecture: imports')

// Arrows allowed against the rules, each with its reason; the last test below fails on one the code no longer has.
// None today: the rewrite of the Nostr pipeline and the crypto room removed the last three.
const exceptions: Exception[] = []

let arrows: ImportArrow[] = []

test.before(() => {
  arrows = readImportGraph(repoRoot, ['src', 'bin'])
})

test('the graph is read: thousands of arrows, including type-only imports and re-exports', () => {
  assert.ok(arrows.length > 1000, `only ${arrows.length} arrows read`)
  assert.ok(arrows.some(a => a.from === 'src/bus/index.ts' && a.to === 'src/bus/dispatcher.ts'), 'a re-export is an arrow')
  assert.ok(arrows.some(a => a.from === 'src/relay/server.ts' && a.to === 'src/bus/index.ts'), 'a type-only import is an arrow')
})

test('no room cycle, no import up the layers (no domain imports a transport), no import past a door', () => {
  const { findings } = checkImports(arrows, plan, exceptions)
  assert.equal(findings.map(f => f.text), [])
})

test('every exception still names an arrow the code has (delete it when its arrow is gone)', () => {
  const { unusedExceptions } = checkImports(arrows, plan, exceptions)
  assert.equal(unusedExceptions.map(e => `${e.from} → ${e.to}`), [])
})

test('the checker finds each kind of fault in a graph that has them', () => {
  const faulty: ImportArrow[] = [
    // A cycle between two domain rooms, through their doors.
    { from: 'src/wallet/index.ts', to: 'src/clink/index.ts' },
    { from: 'src/clink/offers.ts', to: 'src/wallet/index.ts' },
    // A domain importing a transport.
    { from: 'src/lnurl/pay.ts', to: 'src/transports/http/index.ts' },
    // Past a door.
    { from: 'src/metrics/index.ts', to: 'src/wallet/payments/store.ts' },
    // Inside one room: nobody's business.
    { from: 'src/wallet/index.ts', to: 'src/wallet/payments/store.ts' },
  ]
  const { findings } = checkImports(faulty, plan)
  assert.equal(findings.map(f => f.rule).sort(), ['cycle', 'door', 'layer'])
  assert.match(findings.find(f => f.rule === 'layer')!.text, /src\/lnurl\/pay\.ts \(domains\) imports src\/transports\/http\/index\.ts \(transports\)/)
  assert.match(findings.find(f => f.rule === 'cycle')!.text, /src\/clink ↔ src\/wallet/)
})

test('no circle of files either, inside a room or across: each file can be read after the ones it imports', () => {
  const next = new Map<string, string[]>()
  for (const { from, to } of arrows) if (from !== to) next.set(from, [...(next.get(from) ?? []), to])
  // Tarjan's strongly connected components; every component of more than one file is a circle.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const circles: string[][] = []
  const visit = (file: string) => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(file, Math.min(low.get(file)!, low.get(to)!))
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    for (let top = stack.pop()!; ; top = stack.pop()!) {
      onStack.delete(top)
      component.push(top)
      if (top === file) break
    }
    if (component.length > 1) circles.push(component.sort())
  }
  for (const file of next.keys()) if (!index.has(file)) visit(file)
  assert.equal(circles, [])
})

test.run()
