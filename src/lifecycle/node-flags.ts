// Node's own flags the daemon runs with. They must be on node's command line (V8 sizes its heap when the process
// starts; v8.setFlagsFromString afterwards changes nothing), so they are written where the daemon is launched: the
// relaypay command's first line (`#!/usr/bin/env -S node …`, which the systemd unit and the Dockerfile run),
// package.json's `npm start`, and the test and bench harness. test/lifecycle/node-flags.test.ts keeps them equal.
//
// --max-semi-space-size=2 (MiB): V8's young generation grows to 16 MiB semi-spaces (32 MiB committed) under load,
// though a request's garbage is far smaller; with 2 MiB the daemon's RSS after a payment load with 100k users went
// from 226/199 MB to 175/164 MB (bench flatCost, BENCH_FLAT_ONLY=rss) at the same payments/s.
import type { Logger } from 'pino'

export const daemonNodeFlags: readonly string[] = ['--max-semi-space-size=2']

/** The flags this process was started without (on its command line or in NODE_OPTIONS). */
export function missingNodeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map(flag => flag.replace(/_/g, '-')))
  return daemonNodeFlags.filter(flag => !given.has(flag))
}

/** One warning at start when a flag is missing (the daemon was started as `node build/bin/relaypay.js start`). */
export function warnMissingNodeFlags(log: Logger): void {
  const missing = missingNodeFlags()
  if (missing.length > 0) log.warn({ missing }, `started without node ${missing.join(' ')}: it will use more memory; start it with the relaypay command or npm start`)
}
