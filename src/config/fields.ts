// Field types more than one section of the configuration uses.
import { z } from '../vendor/zod.js'
import { decode as nip19Decode } from 'nostr-tools/nip19'

export const port = z.int().min(0).max(65535)
export const url = z.url({ protocol: /^https?$/ })

/** A Nostr public key given as an npub or 64 hex characters, read as lower-case hex; '' stays ''. */
export const nostrPubkey = z.string().transform((value, ctx) => {
  const text = value.trim()
  if (text === '' || /^[0-9a-fA-F]{64}$/.test(text)) return text.toLowerCase()
  try {
    const decoded = nip19Decode(text)
    if (decoded.type === 'npub') return decoded.data
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: 'must be an npub or 64 hex characters' })
  return z.NEVER
})
