// The metrics files: chunked append-only series on disk, and the zip archive of them. Files are read back here by
// hand (and the archive by the system's `unzip` when present), not by the code that wrote them.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { encodeBundleSample, openTlvFileStore, writeZipArchive } from '../../src/metrics/index.js'

let dir: string
const fresh = () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-metrics-files-'))
}
const cleanup = () => fs.rmSync(dir, { recursive: true, force: true })

/** Type-64 entries of a file, by hand. */
function entriesOf(file: string): Buffer[] {
  const bytes = fs.readFileSync(file)
  const out: Buffer[] = []
  for (let at = 0; at < bytes.length; ) {
    assert.is(bytes[at], 64, `entry type at ${at}`)
    const length = bytes[at + 1]!
    out.push(bytes.subarray(at + 2, at + 2 + length))
    at += 2 + length
  }
  return out
}

const store = suite('chunked series files')
store.before.each(fresh)
store.after.each(cleanup)

store('records land in <app>/<series>/<chunk>.mtlv once flushed, as type-64 entries in order', () => {
  const files = openTlvFileStore({ root: dir })
  files.append('_root', 'invoiceWasPaid_user_lnd', encodeBundleSample(100, 1))
  files.append('_root', 'invoiceWasPaid_user_lnd', encodeBundleSample(101, 2))
  const file = path.join(dir, '_root', 'invoiceWasPaid_user_lnd', '0.mtlv')
  assert.not.ok(fs.existsSync(file), 'buffered until a flush')
  files.flush()
  const entries = entriesOf(file)
  assert.equal(entries.map(e => [e.readUInt32BE(0), e.readUInt32BE(4)]), [[100, 1], [101, 2]])
})

store('a series moves to the next chunk once its file reaches the chunk size; reads page by chunk', () => {
  const files = openTlvFileStore({ root: dir, chunkBytes: 50 }) // 5 samples of 10 bytes per chunk
  for (let i = 0; i < 12; i++) files.append('app1', 'usersBalance', encodeBundleSample(1000 + i, i))
  files.flush()
  const chunkFiles = fs.readdirSync(path.join(dir, 'app1', 'usersBalance')).sort()
  assert.equal(chunkFiles, ['0.mtlv', '1.mtlv', '2.mtlv'])
  assert.equal(entriesOf(path.join(dir, 'app1', 'usersBalance', '0.mtlv')).map(e => e.readUInt32BE(4)), [0, 1, 2, 3, 4])
  assert.equal(entriesOf(path.join(dir, 'app1', 'usersBalance', '2.mtlv')).map(e => e.readUInt32BE(4)), [10, 11])

  const [latest] = files.latest(30)
  assert.is(latest!.page.chunk, 2)
  assert.equal(latest!.page.chunks, [0, 1, 2])
  assert.equal(latest!.page.records.map(r => Buffer.from(r).readUInt32BE(4)), [10, 11])
  assert.equal(files.page('app1', 'usersBalance', 1)!.records.map(r => Buffer.from(r).readUInt32BE(4)), [5, 6, 7, 8, 9])
  assert.is(files.page('app1', 'usersBalance', 3), undefined)
  assert.is(files.page('app1', 'other', 0), undefined)
  assert.is(files.all('app1', 'usersBalance').length, 12)
})

store('latest keeps the last `limit` records of the newest chunk', () => {
  const files = openTlvFileStore({ root: dir })
  for (let i = 0; i < 40; i++) files.append('_root', 'GetUserInfo', encodeBundleSample(i, i))
  const [latest] = files.latest(3)
  assert.equal(latest!.page.records.map(r => Buffer.from(r).readUInt32BE(4)), [37, 38, 39])
})

store('a reopened store finds the series and chunks already on disk and appends after them', () => {
  const first = openTlvFileStore({ root: dir, chunkBytes: 50 })
  for (let i = 0; i < 7; i++) first.append('_root', 's', encodeBundleSample(i, i))
  first.flush()
  const second = openTlvFileStore({ root: dir, chunkBytes: 50 })
  second.append('_root', 's', encodeBundleSample(7, 7))
  const [latest] = second.latest(30)
  assert.equal(latest!.page.chunks, [0, 1])
  assert.equal(latest!.page.records.map(r => Buffer.from(r).readUInt32BE(4)), [5, 6, 7])
})

store('names that are not plain directory names are refused', () => {
  const files = openTlvFileStore({ root: dir })
  for (const bad of ['..', '.hidden', 'a/b', '', 'x'.repeat(200)]) {
    assert.throws(() => files.append(bad, 's', encodeBundleSample(1, 1)), /cannot name a directory/, bad)
    assert.throws(() => files.append('_root', bad, encodeBundleSample(1, 1)), /cannot name a directory/, bad)
    assert.is(files.page(bad, 's', 0), undefined)
  }
})

store('reset drops buffered records and every file', () => {
  const files = openTlvFileStore({ root: dir })
  files.append('_root', 's', encodeBundleSample(1, 1))
  files.flush()
  files.append('_root', 's', encodeBundleSample(2, 2))
  files.reset()
  files.flush()
  assert.equal(files.latest(30), [])
  assert.equal(fs.readdirSync(dir), [])
})

// ---- zip ------------------------------------------------------------------------------------------------------

interface ReadEntry {
  name: string
  data: Buffer
}

/** Reads a zip through its end record and central directory, checking each local header and CRC. */
function readZip(file: string): ReadEntry[] {
  const zip = fs.readFileSync(file)
  const end = zip.length - 22
  assert.is(zip.readUInt32LE(end), 0x06054b50, 'end of central directory')
  const count = zip.readUInt16LE(end + 10)
  let at = zip.readUInt32LE(end + 16)
  const entries: ReadEntry[] = []
  for (let i = 0; i < count; i++) {
    assert.is(zip.readUInt32LE(at), 0x02014b50, 'central header')
    const method = zip.readUInt16LE(at + 10)
    const crc = zip.readUInt32LE(at + 16)
    const packedSize = zip.readUInt32LE(at + 20)
    const size = zip.readUInt32LE(at + 24)
    const nameLength = zip.readUInt16LE(at + 28)
    const extraLength = zip.readUInt16LE(at + 30)
    const commentLength = zip.readUInt16LE(at + 32)
    const localAt = zip.readUInt32LE(at + 42)
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8')
    assert.is(zip.readUInt32LE(localAt), 0x04034b50, `local header of ${name}`)
    const localNameLength = zip.readUInt16LE(localAt + 26)
    const localExtraLength = zip.readUInt16LE(localAt + 28)
    const dataAt = localAt + 30 + localNameLength + localExtraLength
    const packed = zip.subarray(dataAt, dataAt + packedSize)
    const data = method === 8 ? zlib.inflateRawSync(packed) : packed
    assert.is(data.length, size, `size of ${name}`)
    assert.is(zlib.crc32(data), crc, `crc of ${name}`)
    entries.push({ name, data })
    at += 46 + nameLength + extraLength + commentLength
  }
  return entries
}

const zip = suite('zip archive')
zip.before.each(fresh)
zip.after.each(cleanup)

zip('holds every file under its name, deflated, with matching sizes and CRCs', async () => {
  fs.mkdirSync(path.join(dir, 'in', 'usage', '_root'), { recursive: true })
  const big = Buffer.alloc(200_000, 'metrics ')
  fs.writeFileSync(path.join(dir, 'in', 'usage', '_root', '0.mtlv'), big)
  fs.writeFileSync(path.join(dir, 'in', 'empty.json'), '')
  fs.writeFileSync(path.join(dir, 'in', 'ünïcode.txt'), 'naïve')
  const out = path.join(dir, 'out.zip')
  const count = await writeZipArchive(out, [
    { name: 'usage/_root/0.mtlv', file: path.join(dir, 'in', 'usage', '_root', '0.mtlv') },
    { name: 'empty.json', file: path.join(dir, 'in', 'empty.json') },
    { name: 'ünïcode.txt', file: path.join(dir, 'in', 'ünïcode.txt') },
  ])
  assert.is(count, 3)
  assert.ok(fs.statSync(out).size < big.length / 10, 'the data is compressed')
  const entries = readZip(out)
  assert.equal(entries.map(e => e.name), ['usage/_root/0.mtlv', 'empty.json', 'ünïcode.txt'])
  assert.ok(entries[0]!.data.equals(big))
  assert.is(entries[1]!.data.length, 0)
  assert.is(entries[2]!.data.toString('utf8'), 'naïve')
})

zip('the system unzip accepts the archive and extracts the same bytes', async () => {
  if (spawnSync('unzip', ['-v']).error) {
    console.log('  (no unzip on this machine: checked by the parser above only)')
    return
  }
  fs.mkdirSync(path.join(dir, 'in'))
  const contents = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251))
  fs.writeFileSync(path.join(dir, 'in', 'a.mtlv'), contents)
  fs.writeFileSync(path.join(dir, 'in', 'b.json'), '[[1,2,3]]')
  const out = path.join(dir, 'out.zip')
  await writeZipArchive(out, [
    { name: 'bundle/_root/usersBalance/0.mtlv', file: path.join(dir, 'in', 'a.mtlv') },
    { name: 'cache/error-stats.json', file: path.join(dir, 'in', 'b.json') },
  ])
  execFileSync('unzip', ['-t', '-q', out]) // throws on a CRC or structure error
  const target = path.join(dir, 'extracted')
  execFileSync('unzip', ['-q', out, '-d', target])
  assert.ok(fs.readFileSync(path.join(target, 'bundle/_root/usersBalance/0.mtlv')).equals(contents))
  assert.is(fs.readFileSync(path.join(target, 'cache/error-stats.json'), 'utf8'), '[[1,2,3]]')
})

zip('a file larger than a slice is one entry; the loop gets a turn between slices and every few files', async () => {
  fs.mkdirSync(path.join(dir, 'in'))
  const big = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256))
  fs.writeFileSync(path.join(dir, 'in', 'big.mtlv'), big)
  for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(dir, 'in', `${i}.json`), `{"n":${i}}`)
  const out = path.join(dir, 'sliced.zip')
  let turns = 0
  const count = await writeZipArchive(
    out,
    [
      { name: 'big.mtlv', file: path.join(dir, 'in', 'big.mtlv') },
      ...Array.from({ length: 5 }, (_, i) => ({ name: `${i}.json`, file: path.join(dir, 'in', `${i}.json`) })),
      { name: 'gone.json', file: path.join(dir, 'in', 'removed-meanwhile.json') },
    ],
    { sliceBytes: 16 * 1024, sliceFiles: 2, yieldToLoop: async () => void turns++ },
  )
  assert.is(count, 6, 'a file that is gone is left out')
  const entries = readZip(out)
  assert.equal(entries.map(e => e.name), ['big.mtlv', '0.json', '1.json', '2.json', '3.json', '4.json'])
  assert.ok(entries[0]!.data.equals(big), 'the slices inflate as one stream')
  assert.is(entries[3]!.data.toString(), '{"n":2}')
  assert.ok(turns >= 5 + 2, `${turns} turns: one per full slice of the big file, one per two files`)
  if (!spawnSync('unzip', ['-v']).error) execFileSync('unzip', ['-t', '-q', out])
})

zip('an empty archive is still a valid zip', async () => {
  const out = path.join(dir, 'empty.zip')
  assert.is(await writeZipArchive(out, []), 0)
  assert.equal(readZip(out), [])
  assert.is(fs.statSync(out).size, 22)
})

store.run()
zip.run()
