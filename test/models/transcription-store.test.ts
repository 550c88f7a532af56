// The transcription room's storage on both engines: the default model and recordings, the same cases
// on SQLite and on a real PostgreSQL 15, through TranscriptionStore.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { transcriptionStore, type RecordingRow, type TranscriptionStore } from '../../src/models/transcription-store.js'
import { sqlErrorKind, type SqlStore } from '../../src/store/index.js'
import { logPostgresSkipped, openEngines } from '../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

const at = 1_750_000_000_000
const recording = (id: string, owner: Partial<RecordingRow> = {}, createdAt = at): RecordingRow => ({
  id,
  owner_kind: 'user',
  owner_id: 'u1',
  model: 'base',
  language: 'en',
  duration_ms: 1500,
  text: `text of ${id}`,
  created_at: createdAt,
  ...owner,
})
const alice = { kind: 'user', id: 'u1' } as const

for (const engine of both.engines) {
  const test = suite(`transcription store on ${engine.engine}`)
  let sql: SqlStore
  let store: TranscriptionStore
  let close: () => Promise<void>
  test.before(async () => {
    ;({ store: sql, close } = await engine.open())
    store = transcriptionStore(sql)
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close()
  })

  test('no default until one is saved; a later save replaces it; the CHECK refuses an empty name', async () => {
    assert.is(await store.defaultModel(), undefined)
    await store.saveDefaultModel('small', at)
    assert.is(await store.defaultModel(), 'small')
    await store.saveDefaultModel('tiny', at + 1)
    assert.is(await store.defaultModel(), 'tiny')
    assert.equal(await sql.many('SELECT id, default_model, updated_at FROM transcription_settings'), [
      { id: 1, default_model: 'tiny', updated_at: at + 1 },
    ])
    assert.is(sqlErrorKind(await store.saveDefaultModel('', at).catch(e => e)), 'check')
    assert.is(await store.defaultModel(), 'tiny')
  })

  test('concurrent saves of the default leave one row holding one of them', async () => {
    const names = ['tiny', 'base', 'small', 'medium', 'turbo']
    await Promise.all(names.map((name, i) => store.saveDefaultModel(name, at + i)))
    const rows = await sql.many<{ default_model: string }>('SELECT default_model FROM transcription_settings')
    assert.is(rows.length, 1)
    assert.ok(names.includes(rows[0]!.default_model))
  })

  test('a recording comes back whole to its owner only; the hook runs once before the commit', async () => {
    let hooks = 0
    await store.insertRecording(recording('r1'), () => void hooks++)
    assert.is(hooks, 1)
    assert.equal(await store.recording(alice, 'r1'), recording('r1'))
    assert.is(await store.recording({ kind: 'user', id: 'u2' }, 'r1'), undefined)
    assert.is(await store.recording({ kind: 'wallet', id: 'u1' }, 'r1'), undefined)
    assert.is(await store.recording(alice, 'nope'), undefined)
  })

  test('a hook that throws rolls the row back; a row the CHECKs refuse never runs the hook', async () => {
    const err = await store.insertRecording(recording('r2'), () => {
      throw new Error('rename failed')
    }).catch(e => e)
    assert.is((err as Error).message, 'rename failed')
    assert.is(await store.recording(alice, 'r2'), undefined)
    let hooks = 0
    const refused = await store.insertRecording(recording('r3', { duration_ms: -1 }), () => void hooks++).catch(e => e)
    assert.is(sqlErrorKind(refused), 'check')
    assert.is(hooks, 0)
  })

  test('recordings are listed newest first (id breaking ties), per owner, by page', async () => {
    const owner = { kind: 'operator', id: '' } as const
    const rows = [
      recording('a1', { owner_kind: 'operator', owner_id: '' }, at + 10),
      recording('a3', { owner_kind: 'operator', owner_id: '' }, at + 20),
      recording('a2', { owner_kind: 'operator', owner_id: '' }, at + 20),
      recording('a4', { owner_kind: 'operator', owner_id: '' }, at + 5),
    ]
    for (const row of rows) await store.insertRecording(row, () => {})
    const ids = async (limit: number, offset: number) => (await store.recordings(owner, { limit, offset })).map(r => r.id)
    assert.equal(await ids(10, 0), ['a3', 'a2', 'a1', 'a4'])
    assert.equal(await ids(2, 1), ['a2', 'a1'])
    assert.equal(await ids(10, 4), [])
    assert.equal((await store.recordings(owner, { limit: 1, offset: 0 }))[0], rows[1])
  })

  test('20 concurrent inserts are each stored once, each hook run once', async () => {
    let hooks = 0
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.insertRecording(recording(`c${i}`, { owner_id: 'many' }, at + i), () => void hooks++),
      ),
    )
    assert.is(hooks, 20)
    assert.is((await store.recordings({ kind: 'user', id: 'many' }, { limit: 50, offset: 0 })).length, 20)
  })

  test.run()
}
