// Preloaded into a daemon under test (`NODE_OPTIONS=--import <this file>`, BENCH_MEMORY_DIR=<dir>) to see what holds
// its memory. Every thread (the main one and each worker, which inherit the preload) writes its V8
// heap figures to `<dir>/<pid>-<threadId>.json` twice a second: committed and used size per heap space, so a young
// generation that grew, or an old generation full of garbage between two mark-compacts, shows as such. SIGWINCH
// makes the main thread write a heap snapshot (`<pid>-<n>.heapsnapshot`, which collects the garbage first) and,
// beside it, the heap's size after that collection: the live heap.
import fs from 'node:fs'
import path from 'node:path'
import v8 from 'node:v8'
import { isMainThread, threadId } from 'node:worker_threads'

const dir = process.env.BENCH_MEMORY_DIR
const kb = (bytes: number) => Math.round(bytes / 1024)

if (dir) {
  const write = () => {
    const heap = v8.getHeapStatistics()
    const spaces = Object.fromEntries(
      v8.getHeapSpaceStatistics().map(space => [space.space_name, { committedKb: kb(space.space_size), usedKb: kb(space.space_used_size) }]),
    )
    const figures = {
      threadId,
      main: isMainThread,
      module: process.argv[1],
      totalKb: kb(heap.total_heap_size),
      usedKb: kb(heap.used_heap_size),
      externalKb: kb(heap.external_memory),
      mallocedKb: kb(heap.malloced_memory),
      spaces,
    }
    fs.writeFileSync(path.join(dir, `${process.pid}-${threadId}.json`), JSON.stringify(figures))
  }
  setInterval(write, 500).unref()
  write()
  if (isMainThread) {
    let snapshots = 0
    process.on('SIGWINCH', () => {
      const file = v8.writeHeapSnapshot(path.join(dir, `${process.pid}-${snapshots++}.heapsnapshot`))
      const heap = v8.getHeapStatistics()
      fs.writeFileSync(`${file}.json`, JSON.stringify({ liveKb: kb(heap.used_heap_size), totalKb: kb(heap.total_heap_size) }))
    })
  }
}
