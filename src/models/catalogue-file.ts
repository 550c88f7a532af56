// `[models] test_catalogue_file`: a JSON model list that replaces the built-in one. It exists for integration
// tests, which must run the real daemon against the synthetic whisper.cpp model (test/models/synthetic-ggml.ts)
// served from a loopback host: the built-in entries pin the published files' sizes and SHA-1, which the
// synthetic file cannot match. Production configs leave it unset; the daemon logs a warning when it is set.
import fs from 'node:fs'
import { z } from '../vendor/zod.js'
import type { Logger } from 'pino'
import { type CatalogueEntry, fallbackDefaultModel } from './catalogue.js'

const label = z.string().min(1)

const entrySchema = z.strictObject({
  name: z.string().min(1).max(32), // the registry's bound: a model name is 1 to 32 characters
  // The file stem becomes part of a path and a URL: no separators or dots at the start.
  file: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only'),
  bytes: z.int().positive(),
  sha1: z.string().regex(/^[0-9a-f]{40}$/, '40 lowercase hex digits'),
  display_name: label,
  description: label,
  params: label,
  approx_memory: label,
  relative_speed: label,
})

const fileSchema = z
  .array(entrySchema)
  .min(1)
  .refine(entries => new Set(entries.map(entry => entry.name)).size === entries.length, 'model names must be unique')
  .refine(
    entries => entries.some(entry => entry.name === fallbackDefaultModel),
    `must include '${fallbackDefaultModel}', the default model when none was set`,
  )

/** Reads and checks a catalogue file; throws an Error naming the file and the first problem. */
export function readTestCatalogue(file: string, log: Logger): CatalogueEntry[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`[models] test_catalogue_file ${file}: ${(err as Error).message}`)
  }
  const result = fileSchema.safeParse(parsed)
  if (!result.success) {
    const issue = result.error.issues[0]!
    throw new Error(`[models] test_catalogue_file ${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`)
  }
  log.warn({ file, models: result.data.map(entry => entry.name) }, 'using a test model catalogue instead of the built-in one')
  return result.data
}
