// Self-contained pages for strangers (the restaurant's order page, the wallet page): one HTML document with its one
// script and one style inline, no other file. Their script is a bundle the build writes to build/console; their
// headers are the console's strict policy with that script and style allowed by their hashes. A ground-floor room:
// it imports nothing of the daemon's, so a domain and an extension can both serve such a page.
import { createHash } from 'node:crypto'
import fs from 'node:fs'

/** Where `npm run build` writes the page bundles: build/src/inline-page → build/console. */
const bundleDir = new URL('../../console/', import.meta.url)

/**
 * A reader of the bundled browser script `file` (in build/console), read once on first use and made safe inside a
 * <script> element; without the bundle (not built), `missing`, a script that says so on the page.
 */
export function bundledScript(file: string, missing: string): () => string {
  let script: string | undefined
  return () => {
    try {
      script ??= fs.readFileSync(new URL(file, bundleDir), 'utf8').replace(/<\/script/gi, '<\\/script')
    } catch {
      return missing
    }
    return script
  }
}

/** The CSP source of an inline script or style: its SHA-256. */
const hashSource = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`

/**
 * The headers of a self-contained page: nothing runs or styles it but its own inline script and style (by hash),
 * it talks only to this daemon, nobody may frame it, nothing is sniffed, and no Referer leaves it. `images`
 * is the img-src list ('self' and data: URLs, the QR codes, by default).
 */
export function inlinePageHeaders(page: { script: string; style: string; images?: string }): Record<string, string> {
  const policy = [
    "default-src 'none'", `script-src ${hashSource(page.script)}`, `style-src ${hashSource(page.style)}`,
    `img-src ${page.images ?? "'self' data:"}`, "connect-src 'self'", "base-uri 'none'", "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
  return {
    'content-security-policy': policy,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  }
}

/** Text for HTML content and quoted attributes. */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** JSON inside a <script> element: `<` is escaped so no value can close the element. */
export const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c')
