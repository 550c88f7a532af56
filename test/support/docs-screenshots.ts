// The pictures of pages in README.md and docs/ are taken by the tests that drive those pages, at the moment the test
// has checked what they show. With RELAYPAY_TEST_DOCS_SCREENSHOTS=1 they are written into docs/; without it (every
// ordinary run) nothing is written, but the secrets check below runs all the same.
import path from 'node:path'
import * as assert from 'uvu/assert'
import type { Locator, Page } from 'playwright-core'
import { repoRoot } from './paths.js'

export const docsScreenshots = process.env.RELAYPAY_TEST_DOCS_SCREENSHOTS === '1'

export interface DocsScreenshot {
  /** The viewport the picture is taken at; the page's own is restored after. */
  viewport?: { width: number; height: number }
  /** The whole page rather than the viewport. */
  fullPage?: boolean
  /** Only the page's full width from the top of the first to the bottom of the last of these (in page order). */
  region?: [Locator, ...Locator[]]
  /** What must not be readable on the page (an admin token, a wallet link's secret, an NWC secret). */
  secrets?: string[]
}

/** The page's visible text and the values of its fields, where a secret would be readable in a picture. */
const readable = (page: Page) =>
  page.evaluate<string>(`[document.body.innerText, ...[...document.querySelectorAll('input, textarea')].map(el => el.value)].join('\\n')`)

/** Waits until the page has laid out and painted what it shows now (fonts loaded, two frames). */
const painted = (page: Page) =>
  page.evaluate('document.fonts.ready.then(() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done))))')

/** Saves what `page` shows now as docs/`file` when RELAYPAY_TEST_DOCS_SCREENSHOTS=1; checks that no secret is readable on it. */
export async function screenshotForDocs(page: Page, file: string, options: DocsScreenshot = {}): Promise<void> {
  const text = await readable(page)
  for (const secret of options.secrets ?? []) {
    assert.ok(secret.length >= 16, 'a secret to look for is long enough to be one')
    assert.not.ok(text.includes(secret), `${file}: a secret is readable on the page`)
  }
  if (!docsScreenshots) return
  const before = page.viewportSize()
  if (options.viewport) {
    await page.setViewportSize(options.viewport)
    await painted(page)
  }
  try {
    let clip: { x: number; y: number; width: number; height: number } | undefined
    if (options.region) {
      const boxes = await Promise.all(options.region.map(part =>
        part.evaluate(el => {
          // The test's types have no DOM: the members used here.
          const box = (el as unknown as { getBoundingClientRect(): { top: number; bottom: number } }).getBoundingClientRect()
          const scrolled = (globalThis as unknown as { scrollY: number }).scrollY
          return { top: box.top + scrolled, bottom: box.bottom + scrolled }
        })))
      const top = Math.max(0, Math.floor(Math.min(...boxes.map(b => b.top))) - 12)
      const bottom = Math.ceil(Math.max(...boxes.map(b => b.bottom))) + 12
      clip = { x: 0, y: top, width: page.viewportSize()!.width, height: bottom - top }
    }
    await page.screenshot({ path: path.join(repoRoot, 'docs', file), fullPage: options.fullPage || !!clip, clip })
  } finally {
    if (options.viewport && before) {
      await page.setViewportSize(before)
      await painted(page)
    }
  }
}
