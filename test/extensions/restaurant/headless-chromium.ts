// A headless Chromium driven over the DevTools protocol with the `ws` package: enough to open a page, run
// script in it, wait for a condition and take a screenshot. Debian's `chromium` package provides the browser;
// where it is absent the tests that need it say so and skip.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { WebSocket } from 'ws'

export function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
  const found = candidates.find((file): file is string => !!file && fs.existsSync(file))
  // CI (.ci/run) installs the browser and the QR reader and sets this: there a missing one is a failure, not a skip.
  if (process.env.RELAYPAY_TEST_REQUIRE_BROWSER && (!found || !fs.existsSync('/usr/bin/zbarimg'))) {
    throw new Error('RELAYPAY_TEST_REQUIRE_BROWSER is set but chromium or /usr/bin/zbarimg is missing')
  }
  return found
}

export interface BrowserPage {
  /** Evaluates an expression in the page (promises awaited) and returns its JSON value. */
  evaluate<T = unknown>(expression: string): Promise<T>
  /** Polls `expression` until it is truthy. */
  waitFor(expression: string, what: string, ms?: number): Promise<void>
  navigate(url: string): Promise<void>
  /** PNG of the viewport. */
  screenshot(): Promise<Buffer>
  /** Uncaught exceptions, console errors and the browser's own errors (security policy refusals) on the page. */
  errors: string[]
  close(): Promise<void>
}

export async function openHeadless(executable: string, viewport = { width: 900, height: 1400 }): Promise<BrowserPage> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-chromium-'))
  const child: ChildProcess = spawn(
    executable,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    // Its own process group: closing stops Chromium's helper processes too, not only the browser.
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  )
  const endpoint = await new Promise<string>((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`chromium did not start:\n${output}`)), 20_000)
    child.stderr!.on('data', chunk => {
      output += chunk
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(output)
      if (found) {
        clearTimeout(timer)
        resolve(found[1]!)
      }
    })
    child.on('exit', code => reject(new Error(`chromium exited with ${code}:\n${output}`)))
  })

  const socket = new WebSocket(endpoint)
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  let nextId = 1
  const waiting = new Map<number, { resolve(value: any): void; reject(err: Error): void }>()
  const listeners: ((method: string, params: any) => void)[] = []
  socket.on('message', raw => {
    const message = JSON.parse(String(raw))
    if (message.id !== undefined) {
      const call = waiting.get(message.id)
      waiting.delete(message.id)
      if (message.error) call?.reject(new Error(`${message.error.message} ${message.error.data ?? ''}`))
      else call?.resolve(message.result)
    } else {
      for (const listener of listeners) listener(message.method, message.params)
    }
  })
  let sessionId: string | undefined
  const send = (method: string, params: object = {}): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve, reject })
      socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }))
    })

  const { targetId } = await send('Target.createTarget', { url: 'about:blank' })
  sessionId = (await send('Target.attachToTarget', { targetId, flatten: true })).sessionId
  const errors: string[] = []
  listeners.push((method, params) => {
    if (method === 'Runtime.exceptionThrown') errors.push(params.exceptionDetails?.exception?.description ?? params.exceptionDetails?.text)
    if (method === 'Runtime.consoleAPICalled' && params.type === 'error') errors.push(params.args.map((a: any) => a.value ?? a.description).join(' '))
    // What the browser itself refused (a script or style the page's security policy does not allow, a failed load).
    // The browser's own request for /favicon.ico, which the page does not make, is not the page's error.
    if (method === 'Log.entryAdded' && params.entry?.level === 'error' && !/\/favicon\.ico$/.test(params.entry.url ?? '')) {
      errors.push(`${params.entry.source}: ${params.entry.text}${params.entry.url ? ` (${params.entry.url})` : ''}`)
    }
  })
  await send('Page.enable')
  await send('Runtime.enable')
  await send('Log.enable')
  await send('Emulation.setDeviceMetricsOverride', { ...viewport, deviceScaleFactor: 1, mobile: false })

  const page: BrowserPage = {
    errors,
    async evaluate<T>(expression: string) {
      const result = await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })
      if (result.exceptionDetails) throw new Error(`in page: ${result.exceptionDetails.exception?.description ?? result.exceptionDetails.text}`)
      return result.result.value as T
    },
    async waitFor(expression, what, ms = 10_000) {
      const until = Date.now() + ms
      while (!(await page.evaluate<boolean>(`Boolean(${expression})`))) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
        await new Promise(resolve => setTimeout(resolve, 50))
      }
    },
    async navigate(url) {
      // A change of fragment alone loads nothing: navigate to another path to reload a page.
      const loaded = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no load event for ${url}`)), 15_000)
        const listener = (method: string) => {
          if (method === 'Page.loadEventFired') {
            listeners.splice(listeners.indexOf(listener), 1)
            clearTimeout(timer)
            resolve()
          }
        }
        listeners.push(listener)
      })
      await send('Page.navigate', { url })
      await loaded
    },
    async screenshot() {
      const { data } = await send('Page.captureScreenshot', { format: 'png' })
      return Buffer.from(data, 'base64')
    },
    async close() {
      socket.close()
      const exited = new Promise(resolve => child.once('exit', resolve))
      const group = (signal: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, signal)
        } catch {
          // the group is gone already
        }
      }
      group('SIGTERM')
      await exited
      group('SIGKILL') // a helper that outlived the browser would keep writing into the profile
      try {
        fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
      } catch (err) {
        // A temporary profile left behind is not the page's failure.
        console.warn(`could not remove the Chromium profile ${profile}: ${(err as Error).message}`)
      }
    },
  }
  return page
}
