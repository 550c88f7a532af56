// The house's rules that are not import arrows (docs/architecture.md), read with the TypeScript compiler: every
// Nostr request kind is served by a codec file that declares a NostrCodec, every room keeps its operations in a
// handlers/ folder and their catalogue entries in its contract/, every table is read and written by one room only,
// Nostr kinds are numbered in one place, and each extension is self-contained: its folder holds its descriptor, and
// no file but the lists of extensions names it.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import ts from 'typescript'
import { repoRoot } from '../support/paths.js'
import { consoleLists, domainLists, groundLists, plan } from './rooms.js'
import { catalogue } from '../../schema/catalogue.js'
import { contractFiles, handlerFiles } from '../../src/cli/operation-files.js'
import { packageMigrationFolders } from '../../src/store/index.js'
import { extensionDescriptors } from '../../src/extensions/descriptors.js'
import { hostedExtensions } from '../../src/extensions/index.js'

const test = suite('architecture: conventions')

const codecDir = 'src/transports/nostr/codecs'

function filesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap(item => {
    const rel = `${dir}/${item.name}`
    if (item.isDirectory()) return filesUnder(rel)
    return /\.tsx?$/.test(item.name) && !item.name.endsWith('.d.ts') ? [rel] : []
  })
}

/** The names of the functions a file exports (`export function x`, `export const x = (…) =>`). */
function exportedFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, true)
  const exported = (node: ts.Node) => ts.canHaveModifiers(node) && ts.getModifiers(node)?.some(m => m.kind === ts.SyntaxKind.ExportKeyword)
  return source.statements.flatMap(statement => {
    if (ts.isFunctionDeclaration(statement) && statement.name && exported(statement)) return [statement.name.text]
    if (ts.isVariableStatement(statement) && exported(statement)) {
      return statement.declarationList.declarations.flatMap(d =>
        ts.isIdentifier(d.name) && d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer)) ? [d.name.text] : [],
      )
    }
    return []
  })
}

/** The codec contract: what a request kind is to the relay transport. */
const codecContract = 'src/nostr-codecs/request-codec.ts'
/** A room's codec of the kinds it serves over Nostr (CLINK's, NIP-47's): `nostr-codec.ts` in the room. */
const roomCodecs = () =>
  fs.readdirSync(path.join(repoRoot, 'src'), { withFileTypes: true }).flatMap(item =>
    item.isDirectory() && fs.existsSync(path.join(repoRoot, 'src', item.name, 'nostr-codec.ts')) ? [`src/${item.name}/nostr-codec.ts`] : [],
  )

test('each codec file (the transport\'s codecs/, a room\'s nostr-codec.ts) exports a factory of a NostrCodec', () => {
  const files = [...filesUnder(codecDir), ...roomCodecs()]
  assert.equal(roomCodecs(), ['src/clink/nostr-codec.ts', 'src/nwc/nostr-codec.ts'])
  assert.ok(files.length >= 3, `only ${files.length} codec files`)
  const roots = [...files, codecContract].map(file => path.join(repoRoot, file))
  const program = ts.createProgram(roots, {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, skipLibCheck: true,
    resolveJsonModule: true, noEmit: true, types: ['node'],
  })
  const checker = program.getTypeChecker()
  const codecFile = program.getSourceFile(path.join(repoRoot, codecContract))!
  const anyCodec = checker.getExportsOfModule(checker.getSymbolAtLocation(codecFile)!).find(s => s.name === 'AnyNostrCodec')
  assert.ok(anyCodec, `${codecContract} declares AnyNostrCodec`)
  const codecType = checker.getDeclaredTypeOfSymbol(anyCodec!)
  const withoutCodec: string[] = []
  for (const file of files) {
    const source = program.getSourceFile(path.join(repoRoot, file))!
    const factories = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).filter(symbol => {
      const type = checker.getTypeOfSymbolAtLocation(symbol, source)
      return type.getCallSignatures().some(signature => checker.isTypeAssignableTo(signature.getReturnType(), codecType))
    })
    if (factories.length === 0) withoutCodec.push(file)
  }
  assert.equal(withoutCodec, [], 'codec files that export no NostrCodec factory')
})

test('the relay transport imports neither clink nor nwc: their codecs come from their rooms, through the composition root', () => {
  const named = filesUnder('src/transports/nostr').flatMap(file =>
    [...fs.readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/from '((?:\.\.\/)+(?:clink|nwc)\/[^']*)'/g)].map(m => `${file}: ${m[1]}`),
  )
  assert.equal(named, [])
})

test('the checker tells a NostrCodec factory from another function', () => {
  // The same check on a file that is no codec (the reply sender): it must not pass, or the test above proves nothing.
  const file = path.join(repoRoot, 'src/transports/nostr/reply-sender.ts')
  const program = ts.createProgram([file, path.join(repoRoot, codecContract)], {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, skipLibCheck: true, noEmit: true, types: ['node'],
  })
  const checker = program.getTypeChecker()
  const codecFile = program.getSourceFile(path.join(repoRoot, codecContract))!
  const codecType = checker.getDeclaredTypeOfSymbol(
    checker.getExportsOfModule(checker.getSymbolAtLocation(codecFile)!).find(s => s.name === 'AnyNostrCodec')!,
  )
  const source = program.getSourceFile(file)!
  const factories = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).filter(symbol =>
    checker.getTypeOfSymbolAtLocation(symbol, source).getCallSignatures().some(s => checker.isTypeAssignableTo(s.getReturnType(), codecType)),
  )
  assert.equal(factories.map(s => s.name), [])
})

test('operations live in handlers/: no handlers.ts, no *-handlers.ts, no xxxHandlers outside handlers/ but a door', () => {
  const files = filesUnder('src')
  const misplaced: string[] = []
  for (const file of files) {
    const inHandlers = file.split('/').includes('handlers')
    const name = path.basename(file)
    if (!inHandlers && /(^|-)handlers\.tsx?$/.test(name)) misplaced.push(`${file}: a handlers file outside a handlers/ folder`)
    // A door assembles its room's table (node's nodeHandlers) or, in a one-file room, holds it.
    if (inHandlers || /^index\.tsx?$/.test(name)) continue
    for (const fn of exportedFunctions(file).filter(fn => /Handlers$/.test(fn))) misplaced.push(`${file}: exports ${fn}`)
  }
  assert.equal(misplaced, [])
})

test('no file beside a handlers/ folder shares a name with one inside it', () => {
  const clashes: string[] = []
  for (const dir of filesUnder('src').filter(f => f.endsWith('/handlers/' + path.basename(f))).map(f => path.dirname(f))) {
    const room = path.dirname(dir)
    for (const name of fs.readdirSync(path.join(repoRoot, dir))) {
      if (fs.existsSync(path.join(repoRoot, room, name))) clashes.push(`${room}/${name} beside ${dir}/${name}`)
    }
  }
  assert.equal([...new Set(clashes)], [])
})

/** The tables each room's SQL names: FROM/JOIN/INTO/UPDATE/TABLE in the file's string and template literals. */
function tablesNamedByRoom(tables: ReadonlySet<string>): Map<string, Set<string>> {
  const byTable = new Map<string, Set<string>>()
  const sqlName = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+([a-z_][a-z0-9_]*)/g
  for (const file of filesUnder('src')) {
    const source = ts.createSourceFile(file, fs.readFileSync(path.join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, true)
    const visit = (node: ts.Node): void => {
      let text: string | undefined
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text
      else if (ts.isTemplateExpression(node)) text = [node.head.text, ...node.templateSpans.map(span => span.literal.text)].join(' ')
      for (const match of text?.matchAll(sqlName) ?? []) {
        const table = match[1]!.toLowerCase()
        if (tables.has(table)) (byTable.get(table) ?? byTable.set(table, new Set()).get(table)!).add(plan.roomOf(file))
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return byTable
}

test('every table is named in the SQL of one room only: rooms own their tables', () => {
  const tables = new Set<string>(['schema_migrations'])
  for (const dir of packageMigrationFolders()) {
    for (const file of fs.readdirSync(dir)) {
      for (const match of fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/gi)) {
        tables.add(match[1]!.toLowerCase())
      }
    }
  }
  const byTable = tablesNamedByRoom(tables)
  assert.ok(byTable.get('payments')?.has('src/wallet'), 'the wallet names its payments table (the reader works)')
  assert.ok(byTable.get('payroll_contracts')?.has('src/extensions/payroll'), 'an extension\'s migrations are read too')
  const shared = [...byTable].filter(([, rooms]) => rooms.size > 1).map(([table, rooms]) => `${table}: ${[...rooms].sort().join(', ')}`)
  assert.equal(shared, [])
})


test('Nostr kind numbers are written in src/nostr-kinds only: every other file names them', () => {
  const kindNumbers = new Set([13194, 21000, 21001, 21002, 21003, 21004, 22242, 23194, 23195, 23196, 23197, 30078])
  const written: string[] = []
  for (const file of [...filesUnder('src'), ...filesUnder('schema')]) {
    if (file === 'src/nostr-kinds/index.ts') continue
    const source = ts.createSourceFile(file, fs.readFileSync(path.join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, true)
    const visit = (node: ts.Node): void => {
      if (ts.isNumericLiteral(node) && kindNumbers.has(Number(node.text))) {
        written.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.text}`)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  assert.equal(written, [])
})

test('every operation has its handler in a handlers/ folder: the file relaypay docs names', () => {
  const found = handlerFiles(catalogue.map(entry => entry.name))
  const astray: string[] = []
  for (const [name, files] of found) {
    if (files.length === 0) astray.push(`${name}: no handler found`)
    // Two files only where a room serves an operation one way or another by its setting (swaps off: refused.ts).
    if (files.length > 1 && !files.every(file => file.startsWith('src/swaps/handlers/'))) astray.push(`${name}: in ${files.join(' and ')}`)
  }
  assert.equal(astray, [])
})

/**
 * Each operation whose entry is not written once, in the contract of the room its handler is in
 * (`<room>/contract/operations.ts`): an entry in schema/, in another room's contract, in two, or in none.
 */
function entriesAstray(handlers: ReadonlyMap<string, string[]>, contracts: ReadonlyMap<string, string[]>): string[] {
  const astray: string[] = []
  for (const [name, files] of contracts) {
    const rooms = [...new Set((handlers.get(name) ?? []).map(file => plan.roomOf(file)))]
    if (files.length === 1 && rooms.length === 1 && files[0] === `${rooms[0]}/contract/operations.ts`) continue
    astray.push(`${name}: written in ${files.join(' and ') || 'no contract'}, served by ${rooms.join(' and ') || 'no room'}`)
  }
  return astray
}

test("every operation's entry is written beside the room that serves it, in its contract/operations.ts: the files relaypay docs names", () => {
  const names = catalogue.map(entry => entry.name)
  const contracts = contractFiles(names)
  assert.is(contracts.get('PayInvoice')?.[0], 'src/wallet/contract/operations.ts', 'the reader finds a contract')
  assert.equal(entriesAstray(handlerFiles(names), contracts), [])
})

test('the check finds an entry written away from the room that serves it (control)', () => {
  const handlers = new Map([
    ['PayInvoice', ['src/wallet/handlers/payments.ts']],
    ['NodeGetInfo', ['src/node/handlers/info.ts']],
    ['Health', ['src/health/handlers/health.ts']],
    ['AddSwap', ['src/swaps/handlers/refused.ts', 'src/swaps/handlers/swaps.ts']],
    ['OrderQuote', ['src/extensions/restaurant/handlers/orders.ts']],
  ])
  const contracts = new Map([
    ['PayInvoice', ['src/wallet/contract/operations.ts']],
    ['NodeGetInfo', ['src/wallet/contract/operations.ts']],
    ['Health', []],
    ['AddSwap', ['src/swaps/contract/operations.ts']],
    ['OrderQuote', ['src/extensions/restaurant/contract/operations.ts', 'src/node/contract/operations.ts']],
  ])
  assert.equal(entriesAstray(handlers, contracts), [
    'NodeGetInfo: written in src/wallet/contract/operations.ts, served by src/node',
    'Health: written in no contract, served by src/health',
    'OrderQuote: written in src/extensions/restaurant/contract/operations.ts and src/node/contract/operations.ts, served by src/extensions/restaurant',
  ])
})

test("test files take suite from test/support/suite.ts, which tells a hook's error (uvu's own drops it)", () => {
  const direct = [...filesUnder('test'), ...filesUnder('bench')].filter(
    file => file !== 'test/support/suite.ts' && /^import [^\n]* from 'uvu'$/m.test(fs.readFileSync(path.join(repoRoot, file), 'utf8')),
  )
  assert.equal(direct, [])
})

/** The packages src/vendor re-exports, each bundled into one file at build. */
const vendored = filesUnder('src/vendor').flatMap(file => [...fs.readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/from '([^'.][^']*)'/g)].map(m => m[1]!))
/** Code the browser runs: bundled apart by esbuild, never loaded by Node (an extension's pages and console pages too). */
const isBrowserCode = (file: string) =>
  file.startsWith('src/console/ui/') || file.startsWith('src/wallet-page/page/') ||
  /^src\/extensions\/[^/]+\/(page|console)\//.test(file) || file === 'src/extensions/console.ts'

test('src/ imports a bundled package only through src/vendor (type-only imports aside), and the build bundles them', () => {
  assert.ok(vendored.includes('rxjs') && vendored.includes('zod'), `src/vendor names ${vendored.join(', ')}`)
  const direct = [...filesUnder('src'), ...filesUnder('bin'), ...filesUnder('schema')]
    .filter(file => !file.startsWith('src/vendor/') && !isBrowserCode(file))
    .flatMap(file => {
      const source = ts.createSourceFile(file, fs.readFileSync(path.join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, true)
      return source.statements.flatMap(statement => {
        const from = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier
        if (!from || !ts.isStringLiteral(from) || !vendored.includes(from.text)) return []
        const typeOnly = ts.isImportDeclaration(statement) ? statement.importClause?.isTypeOnly === true : statement.isTypeOnly
        return typeOnly ? [] : [`${file} imports '${from.text}'`]
      })
    })
  assert.equal(direct, [], 'a second copy of a bundled package would load beside the bundle: import it from src/vendor')
  // The build's output: each vendor file is one file that names no package (Node's own modules aside).
  for (const file of filesUnder('src/vendor')) {
    const built = fs.readFileSync(path.join(repoRoot, 'build', file.replace(/\.ts$/, '.js')), 'utf8')
    const packages = [...built.matchAll(/^(?:import|export)\b[^\n]*?['"]([^'"./][^'"]*)['"];?$/gm)].map(m => m[1]!).filter(name => !name.startsWith('node:'))
    assert.equal(packages, [], `build/${file.replace(/\.ts$/, '.js')} still loads ${packages.join(', ')}: scripts/bundle-vendor.mjs did not bundle it`)
  }
  // bolt11's secp256k1 finds its native addon by its own directory; bundled, that lookup fails and it falls back to
  // its JavaScript curve without a word. It must stay outside the bundle, required from node_modules.
  const bolt11 = fs.readFileSync(path.join(repoRoot, 'build/src/vendor/bolt11.js'), 'utf8')
  assert.ok(bolt11.includes('require("secp256k1")'), 'the bolt11 bundle requires secp256k1 from node_modules')
  assert.not.ok(/node-gyp-build|secp256k1\.node/.test(bolt11), 'secp256k1 (its addon lookup) was bundled into the bolt11 bundle')
})

/** nostr-tools' modules that open relay connections: a pool, or a relay link a pool is made of. */
const relayConnectionModules = ['nostr-tools/pool', 'nostr-tools/abstract-pool', 'nostr-tools/relay', 'nostr-tools/abstract-relay']

test('only the transports open relay connections: every outbound publish goes through the Nostr transport\'s one pool', () => {
  const opening = [...filesUnder('src'), ...filesUnder('bin'), ...filesUnder('schema')]
    .filter(file => !file.startsWith('src/transports/') && !isBrowserCode(file))
    .flatMap(file => {
      const source = ts.createSourceFile(file, fs.readFileSync(path.join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, true)
      return source.statements.flatMap(statement => {
        const from = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier
        if (!from || !ts.isStringLiteral(from) || !relayConnectionModules.includes(from.text)) return []
        const typeOnly = ts.isImportDeclaration(statement) ? statement.importClause?.isTypeOnly === true : statement.isTypeOnly
        return typeOnly ? [] : [`${file} imports '${from.text}'`]
      })
    })
  assert.equal(opening, [], 'a room outside src/transports opens relay connections of its own: hand it the transport\'s announcer')
})

/** The lists of extensions (src/extensions/): the only files outside an extension's folder that may name one. */
const extensionLists = [...groundLists, ...consoleLists, ...domainLists].map(name => `src/extensions/${name}`)
/** The folder of src/extensions/ that is no extension: the host they are written against. */
const extensionHost = 'host'

/** The extensions' folders under `root`: every folder of src/extensions/ but the host's. */
function extensionFolders(root: string): string[] {
  return fs
    .readdirSync(path.join(root, 'src/extensions'), { withFileTypes: true })
    .filter(entry => entry.isDirectory() && entry.name !== extensionHost)
    .map(entry => entry.name)
    .sort()
}

function codeFilesUnder(root: string, dir: string): string[] {
  if (!fs.existsSync(path.join(root, dir))) return []
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap(item => {
    const rel = `${dir}/${item.name}`
    if (item.isDirectory()) return codeFilesUnder(root, rel)
    return /\.(tsx?|mjs|js)$/.test(item.name) && !item.name.endsWith('.d.ts') ? [rel] : []
  })
}

/**
 * Every import path that names an extension where only the extension itself and the lists may: a file of src/,
 * bin/, schema/ or scripts/ outside the extension's folder (an extension naming another one, the host naming any),
 * and the build's settings (package.json's scripts and files, the tsconfig files' includes and excludes).
 */
function extensionsNamedOutside(root: string, ids: readonly string[]): string[] {
  const names = new RegExp(`(?:^|[/._-])(${ids.join('|')})(?:[/._-]|$)`)
  const found: string[] = []
  const files = ['src', 'bin', 'schema', 'scripts'].flatMap(dir => codeFilesUnder(root, dir))
  for (const file of files.filter(file => !extensionLists.includes(file))) {
    const own = file.match(/^src\/extensions\/([^/]+)\//)?.[1]
    for (const { fileName } of ts.preProcessFile(fs.readFileSync(path.join(root, file), 'utf8'), true, true).importedFiles) {
      const named = fileName.match(names)?.[1]
      if (named && named !== own) found.push(`${file} imports ${fileName}`)
    }
  }
  const settings: [string, (json: any) => unknown][] = [
    ['package.json', json => [json.scripts, json.files]],
    ['tsconfig.json', json => [json.include, json.exclude]],
    ['src/console/ui/tsconfig.json', json => [json.include, json.exclude]],
  ]
  for (const [file, part] of settings) {
    if (!fs.existsSync(path.join(root, file))) continue
    const text = JSON.stringify(part(JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'))))
    for (const id of ids) if (new RegExp(`\\b${id}\\b`).test(text)) found.push(`${file} names ${id}`)
  }
  return found
}

test('no file but an extension\'s own and the lists of extensions names it in an import path, nor do the build\'s settings', () => {
  const ids = extensionFolders(repoRoot)
  assert.ok(ids.includes('restaurant') && ids.includes('payroll'), `the extensions' folders: ${ids.join(', ')}`)
  assert.equal(extensionsNamedOutside(repoRoot, ids), [])
})

test('the check finds an extension named outside its folder where one is planted (control)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-extensions-'))
  const plant = (relative: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true })
    fs.writeFileSync(path.join(root, relative), text)
  }
  try {
    plant('src/extensions/host/index.ts', "export type { X } from '../payroll/x.js'\n")
    plant('src/extensions/payroll/index.ts', "import { pay } from './pay-now.js'\nimport type { Menu } from '../restaurant/menu-store.js'\n")
    plant('src/extensions/restaurant/index.ts', "import { menu } from './menu-store.js'\n")
    plant('src/extensions/operations.ts', "import { payrollOperations } from './payroll/contract/operations.js'\n")
    plant('src/config/schema.ts', "import { payrollSection } from '../extensions/payroll/contract/descriptor.js'\n")
    plant('schema/catalogue.ts', "import { restaurantOperations } from './operations/restaurant.js'\n")
    plant('src/console/ui/console.tsx', "const page = await import('../../extensions/restaurant/console/index.js')\n")
    plant('src/rates/rates.ts', '// payroll prices a period at its payday\'s rate\nexport const x = 1\n')
    plant('package.json', JSON.stringify({ scripts: { build: 'esbuild src/extensions/restaurant/page/order.ts' }, description: 'payroll' }))
    plant('tsconfig.json', JSON.stringify({ exclude: ['src/extensions/*/page/**'] }))
    assert.equal(extensionsNamedOutside(root, extensionFolders(root)).sort(), [
      "package.json names restaurant",
      "schema/catalogue.ts imports ./operations/restaurant.js",
      "src/config/schema.ts imports ../extensions/payroll/contract/descriptor.js",
      "src/console/ui/console.tsx imports ../../extensions/restaurant/console/index.js",
      "src/extensions/host/index.ts imports ../payroll/x.js",
      "src/extensions/payroll/index.ts imports ../restaurant/menu-store.js",
    ])
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})

test('each extension\'s folder holds its descriptor, and every list of extensions names each extension', async () => {
  const ids = extensionFolders(repoRoot)
  const listed = extensionDescriptors.map(descriptor => descriptor.id)
  assert.equal([...listed].sort(), ids, 'src/extensions/descriptors.ts lists every extension\'s descriptor')
  assert.equal(hostedExtensions.map(extension => extension.id).sort(), ids, 'src/extensions/index.ts starts every extension')
  const withOperations = new Set(catalogue.flatMap(entry => ('extension' in entry && entry.extension ? [entry.extension] : [])))
  assert.equal([...withOperations].sort(), ids, 'the catalogue (src/extensions/operations.ts) holds each extension\'s operations, and no other extension\'s')
  const consoleList = fs.readFileSync(path.join(repoRoot, 'src/extensions/console.ts'), 'utf8')
  for (const id of ids) {
    const folder = `src/extensions/${id}`
    // The descriptor: one, in contract/descriptor.ts, for this folder's id, the one the list holds.
    const module = (await import(`../../${folder}/contract/descriptor.js`)) as Record<string, unknown>
    const exported = Object.values(module)
    assert.is(exported.length, 1, `${folder}/contract/descriptor.ts exports one descriptor`)
    assert.is(exported[0], extensionDescriptors.find(descriptor => descriptor.id === id), `${folder}'s descriptor is the one listed, with id '${id}'`)
    for (const { entry, bundle } of extensionDescriptors.find(descriptor => descriptor.id === id)!.pages) {
      assert.ok(fs.existsSync(path.join(repoRoot, folder, entry)), `${folder}/${entry}, a page the build bundles, exists`)
      assert.ok(fs.existsSync(path.join(repoRoot, 'build/console', bundle)), `the build made build/console/${bundle}`)
    }
    // Its operations are declared in its folder: every catalogue entry of the extension comes from its contract.
    const operations = (await import(`../../${folder}/contract/operations.js`)) as Record<string, { name: string }[]>
    const declared = new Set(Object.values(operations).flat().map(entry => entry.name))
    const entries = catalogue.filter(entry => 'extension' in entry && entry.extension === id).map(entry => entry.name)
    assert.equal(entries.filter(name => !declared.has(name)), [], `${id}'s operations are in ${folder}/contract/operations.ts`)
    if (fs.existsSync(path.join(repoRoot, folder, 'console/index.ts'))) {
      assert.ok(consoleList.includes(`'./${id}/console/index.js'`), `src/extensions/console.ts lists ${folder}/console`)
    }
  }
})

test.run()
