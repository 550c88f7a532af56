// The console's built files (npm run build writes them to build/console): read once at start and served from
// memory. Only names found in that folder are served, so no request path ever reaches the file system.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export interface Asset {
  body: Buffer
  contentType: string
}

export interface Assets {
  /** False when the folder is missing (the page was not built). */
  built: boolean
  get(name: string, allowed?: boolean): Asset | undefined
}

/** build/src/console/assets.js → build/console */
export const defaultAssetsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../console')

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
}

export function loadAssets(dir = defaultAssetsDir): Assets {
  const files = new Map<string, Asset>()
  let built = false
  try {
    for (const name of fs.readdirSync(dir)) {
      const type = types[path.extname(name)]
      if (!type) continue
      files.set(name, { body: fs.readFileSync(path.join(dir, name)), contentType: type })
    }
    built = files.has('console.js')
  } catch {
    built = false
  }
  const index = built ? { body: Buffer.from(indexHtml), contentType: types['.html']! } : undefined
  return {
    built,
    get(name, allowed = true) {
      if (name === 'index.html') return index
      return allowed ? files.get(name) : undefined
    },
  }
}

/** The shell: one external script and one external stylesheet, nothing inline (the CSP forbids it). */
const indexHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>relaypay console</title>
<link rel="stylesheet" href="assets/console.css">
<script type="module" src="assets/console.js"></script>
</head>
<body>
<div id="app"><p class="loading">Loading the console…</p></div>
</body>
</html>
`
