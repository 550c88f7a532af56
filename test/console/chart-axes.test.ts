// The charts' value axes: ticks at both ends and up to two between, on whole values as their labels are written, none
// twice. A count from 0 to 1 drew four ticks labelled "0, 0, 1, 1", and a failure count of 1 sat between two lines
// both labelled 1. The console's code is browser code, bundled apart: esbuild compiles the pure module here.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import path from 'node:path'
import { build } from 'esbuild'
import { repoRoot } from '../support/paths.js'

const test = suite('console: chart axes')

const bundled = await build({
  entryPoints: [path.join(repoRoot, 'src/console/ui/pages/chart-series.ts')],
  bundle: true,
  format: 'esm',
  write: false,
  logLevel: 'warning',
})
const { axisSplits } = (await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0]!.text).toString('base64')}`)) as {
  axisSplits(lo: number, hi: number): number[]
}

test('small counts get one tick per whole value, none repeated', () => {
  assert.equal(axisSplits(0, 1), [0, 1])
  assert.equal(axisSplits(0, 2), [0, 1, 2])
  assert.equal(axisSplits(0, 3), [0, 1, 2, 3])
})

test('a wide range keeps both ends and two whole values between', () => {
  assert.equal(axisSplits(0, 1000), [0, 333, 667, 1000])
  assert.equal(axisSplits(120_000, 9_000_000), [120_000, 3_080_000, 6_040_000, 9_000_000])
})

test('the ends stay where the range ends, whole or not', () => {
  assert.equal(axisSplits(0.5, 1.5), [0.5, 1, 1.5])
})

test.run()
