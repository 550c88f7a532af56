// Debian's headless Chromium through playwright-core (no browser download: the system one, by executablePath),
// with a fresh empty profile and everything that would reach the network switched off.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

export function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']
  const found = candidates.find((file): file is string => !!file && fs.existsSync(file))
  // CI (.ci/run) installs the browser and the QR reader and sets this: there a missing one is a failure, not a skip.
  if (process.env.RELAYPAY_TEST_REQUIRE_BROWSER && (!found || !fs.existsSync('/usr/bin/zbarimg'))) {
    throw new Error('RELAYPAY_TEST_REQUIRE_BROWSER is set but chromium or /usr/bin/zbarimg is missing')
  }
  return found
}

export interface Browser {
  context: BrowserContext
  close(): Promise<void>
}

/** `extraArgs` go on Chromium's command line after the usual ones (the wallet page's scan test gives it a fake camera). */
export async function launchBrowser(executablePath: string, viewport = { width: 1280, height: 900 }, extraArgs: string[] = []): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-console-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', ...extraArgs,
    ],
  })
  return {
    context,
    async close() {
      await context.close()
      fs.rmSync(profile, { recursive: true, force: true })
    },
  }
}

/** Polls `check` until it returns true (or throws its last error after `timeoutMs`). */
export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    try {
      if (await check()) return
    } catch (err) {
      last = err
    }
    await new Promise(resolve => setTimeout(resolve, 200))
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`)
}

/**
 * Signs `page` in to a daemon's console with its admin token and waits for the overview. With `pageErrors`, the
 * page's uncaught errors and its Content Security Policy refusals are collected there first.
 */
export async function signInToConsole(page: Page, daemon: { url: string; adminToken: string }, pageErrors?: string[]): Promise<void> {
  if (pageErrors) {
    page.on('pageerror', err => pageErrors.push(err.message))
    page.on('console', message => {
      if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text())) pageErrors.push(message.text())
    })
  }
  await page.goto(`${daemon.url}/console/`)
  await page.getByLabel('Admin token').fill(daemon.adminToken)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Overview' }).waitFor()
}
