// One Boltz v2 provider over HTTP: the endpoints swaps use, each answer checked
// against the shape we rely on before anything reads it. Every failure becomes a ProviderError whose message
// names the provider and is short enough to show a caller ("http://…: HTTP 400: invoice has expired").
import { z } from '../vendor/zod.js'

/**
 * A provider URL as logs and callers see it (errors, quotes' service_url): a user name, password or query value
 * the operator put in the configured URL (an API key) is replaced by `***`. A URL without any is left as written.
 */
export function shownUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return '<invalid url>'
  }
  if (!parsed.username && !parsed.password && !parsed.search) return url
  if (parsed.username) parsed.username = '***'
  if (parsed.password) parsed.password = '***'
  for (const key of [...new Set(parsed.searchParams.keys())]) parsed.searchParams.set(key, '***')
  return parsed.toString().replaceAll('%2A%2A%2A', '***')
}

/** Any `scheme://user:password@` in a text (a library's error quoting the URL) with the credentials replaced. */
export function withoutUserinfo(text: string): string {
  return text.replace(/(\w+:\/\/)[^\s/@]+@/g, '$1***@')
}

export class ProviderError extends Error {
  readonly reason: string
  constructor(
    readonly providerUrl: string,
    reason: string,
    /** The provider answered with an HTTP status (it refused), rather than being unreachable. */
    readonly status?: number,
  ) {
    const said = withoutUserinfo(reason)
    super(`${shownUrl(providerUrl)}: ${said}`)
    this.reason = said
    this.name = 'ProviderError'
  }
}

const hex = z.string().regex(/^[0-9a-fA-F]*$/, 'must be hex')
const sats = z.number().int().nonnegative()
const leaf = z.object({ version: z.number().int(), output: hex })
export const SerializedSwapTree = z.object({ claimLeaf: leaf, refundLeaf: leaf })
export type SerializedSwapTree = z.infer<typeof SerializedSwapTree>

const ReversePairs = z.object({
  BTC: z.object({
    BTC: z.object({
      hash: z.string(),
      rate: z.number(),
      limits: z.object({ minimal: sats, maximal: sats }),
      fees: z.object({ percentage: z.number().nonnegative(), minerFees: z.object({ lockup: sats, claim: sats }) }),
    }),
  }),
})
export type ReversePair = z.infer<typeof ReversePairs>['BTC']['BTC']

const SubmarinePairs = z.object({
  BTC: z.object({
    BTC: z.object({
      hash: z.string(),
      rate: z.number(),
      limits: z.object({ minimal: sats, maximal: sats }),
      fees: z.object({ percentage: z.number().nonnegative(), minerFees: sats }),
    }),
  }),
})
export type SubmarinePair = z.infer<typeof SubmarinePairs>['BTC']['BTC']

const CreatedReverseSwap = z.object({
  id: z.string().min(1),
  invoice: z.string().min(1),
  swapTree: SerializedSwapTree,
  lockupAddress: z.string().min(1),
  refundPublicKey: hex,
  timeoutBlockHeight: z.number().int().positive(),
  onchainAmount: sats,
})
export type CreatedReverseSwap = z.infer<typeof CreatedReverseSwap>

const CreatedSubmarineSwap = z.object({
  id: z.string().min(1),
  address: z.string().min(1),
  swapTree: SerializedSwapTree,
  claimPublicKey: hex,
  timeoutBlockHeight: z.number().int().positive(),
  expectedAmount: sats,
})
export type CreatedSubmarineSwap = z.infer<typeof CreatedSubmarineSwap>

const PartialSignature = z.object({ pubNonce: hex, partialSignature: hex })
export type PartialSignature = z.infer<typeof PartialSignature>

const SwapTransaction = z.object({ id: hex, hex: hex.optional(), timeoutBlockHeight: z.number().int().optional() })
export type SwapTransaction = z.infer<typeof SwapTransaction>

const SubmarineClaimRequest = z.object({ preimage: hex, pubNonce: hex, transactionHash: hex })
export type SubmarineClaimRequest = z.infer<typeof SubmarineClaimRequest>

export const SwapStatus = z.object({
  status: z.string(),
  failureReason: z.string().optional(),
  transaction: z.object({ id: hex, hex: hex.optional() }).optional(),
})
export type SwapStatus = z.infer<typeof SwapStatus>

const Broadcast = z.object({ id: hex })
const Empty = z.unknown()

export interface ProviderApiOptions {
  /** The API base, e.g. http://127.0.0.1:9001 or https://boltz.example/api; `/v2/…` is appended. */
  url: string
  timeoutMs: number
  fetch?: typeof globalThis.fetch
}

export function providerApi({ url, timeoutMs, fetch = globalThis.fetch }: ProviderApiOptions) {
  const base = url.replace(/\/+$/, '')

  async function call<T>(method: 'GET' | 'POST', path: string, schema: z.ZodType<T>, body?: unknown): Promise<T> {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), timeoutMs)
    try {
      let response: Response
      let text: string
      try {
        response = await fetch(base + path, {
          method,
          signal: controller.signal,
          headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        })
        text = await response.text()
      } catch (err) {
        throw new ProviderError(url, controller.signal.aborted ? `timed out after ${timeoutMs} ms` : unreachable(err))
      }
      let json: unknown
      try {
        json = text === '' ? {} : JSON.parse(text)
      } catch {
        throw new ProviderError(url, `${method} ${path}: answer is not JSON`, response.ok ? undefined : response.status)
      }
      if (!response.ok) {
        const said = typeof (json as { error?: unknown })?.error === 'string' ? `: ${(json as { error: string }).error}` : ''
        throw new ProviderError(url, `HTTP ${response.status}${said}`.slice(0, 300), response.status)
      }
      const parsed = schema.safeParse(json)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!
        throw new ProviderError(url, `${method} ${path}: unexpected answer (${issue.path.join('.')}: ${issue.message})`)
      }
      return parsed.data
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    url,
    reversePair: async (): Promise<ReversePair> => (await call('GET', '/v2/swap/reverse', ReversePairs)).BTC.BTC,
    submarinePair: async (): Promise<SubmarinePair> => (await call('GET', '/v2/swap/submarine', SubmarinePairs)).BTC.BTC,

    createReverseSwap: (request: {
      preimageHash: string
      claimPublicKey: string
      onchainAmount: number
      pairHash: string
    }) => call('POST', '/v2/swap/reverse', CreatedReverseSwap, { from: 'BTC', to: 'BTC', ...request }),

    createSubmarineSwap: (request: { invoice: string; refundPublicKey: string; pairHash: string }) =>
      call('POST', '/v2/swap/submarine', CreatedSubmarineSwap, { from: 'BTC', to: 'BTC', ...request }),

    swapStatus: (id: string) => call('GET', `/v2/swap/${encodeURIComponent(id)}`, SwapStatus),

    reverseTransaction: (id: string) =>
      call('GET', `/v2/swap/reverse/${encodeURIComponent(id)}/transaction`, SwapTransaction),
    submarineTransaction: (id: string) =>
      call('GET', `/v2/swap/submarine/${encodeURIComponent(id)}/transaction`, SwapTransaction),

    /** Cooperative reverse claim: the provider's partial signature for our claim transaction. */
    reverseClaim: (id: string, request: { preimage: string; pubNonce: string; transaction: string; index: number }) =>
      call('POST', `/v2/swap/reverse/${encodeURIComponent(id)}/claim`, PartialSignature, request),

    /** What the provider wants us to co-sign for its claim of a submarine lockup. */
    submarineClaimRequest: (id: string) =>
      call('GET', `/v2/swap/submarine/${encodeURIComponent(id)}/claim`, SubmarineClaimRequest),
    submarineClaimSignature: (id: string, signature: PartialSignature) =>
      call('POST', `/v2/swap/submarine/${encodeURIComponent(id)}/claim`, Empty, signature),

    /** Cooperative submarine refund: the provider's partial signature for our refund transaction. */
    submarineRefund: (id: string, request: { pubNonce: string; transaction: string; index: number }) =>
      call('POST', `/v2/swap/submarine/${encodeURIComponent(id)}/refund`, PartialSignature, request),

    broadcast: async (hexTx: string): Promise<string> =>
      (await call('POST', '/v2/chain/BTC/transaction', Broadcast, { hex: hexTx })).id,
  }
}

export type ProviderApi = ReturnType<typeof providerApi>

/** undici reports network failures as `TypeError: fetch failed` with the real error as its cause. */
function unreachable(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause
  if (typeof cause?.code === 'string') return `unreachable (${cause.code})`
  if (typeof cause?.message === 'string') return `unreachable (${cause.message})`
  return `unreachable (${err instanceof Error ? err.message : String(err)})`
}
