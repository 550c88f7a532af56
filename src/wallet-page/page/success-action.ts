// What the recipient of an LNURL payment asks the payer's wallet to show once it is paid (LUD-09), as the page shows
// it: a message, a link (http or https only, opened by the person and never by the page, with no opener and no
// referrer), or a secret the page decrypts with the payment's preimage (LUD-10: AES-256-CBC, PKCS#7 padding) by the
// browser's WebCrypto. The server has checked the action already (src/lnurl/pay-request-client.ts); the page checks
// again what it puts on the screen, and anything wrong is left out without a word. Text goes in by textContent only.

export interface SuccessAction {
  tag: string
  message?: string
  description?: string
  url?: string
  ciphertext?: string
  iv?: string
}

/** LUD-09 and LUD-10: at most 144 characters of text, plaintext included. */
const maxText = 144

function paragraph(text: string, className?: string): HTMLParagraphElement {
  const p = document.createElement('p')
  if (className) p.className = className
  p.textContent = text
  return p
}

const shortText = (value: unknown): value is string => typeof value === 'string' && value.length <= maxText

function bytesOfBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text)
  return Uint8Array.from(binary, c => c.charCodeAt(0))
}

function bytesOfHex(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return undefined
  return Uint8Array.from(hex.match(/../g)!, byte => parseInt(byte, 16))
}

/** The plaintext of an `aes` action, or undefined when it does not decrypt to at most 144 characters of UTF-8. */
async function decrypt(action: SuccessAction, preimage: Uint8Array<ArrayBuffer>): Promise<string | undefined> {
  try {
    const iv = bytesOfBase64(action.iv ?? '')
    if (iv.length !== 16) return undefined
    const key = await crypto.subtle.importKey('raw', preimage, { name: 'AES-CBC' }, false, ['decrypt'])
    const plain = await crypto.subtle.decrypt({ name: 'AES-CBC', iv }, key, bytesOfBase64(action.ciphertext ?? ''))
    const text = new TextDecoder('utf-8', { fatal: true }).decode(plain)
    return text.length <= maxText ? text : undefined
  } catch {
    return undefined
  }
}

/**
 * The elements that show `action` after a payment whose preimage is `preimageHex` ("" when the wallet paid an invoice
 * of its own node and was given none); none for an action that is invalid in any way.
 */
export async function successActionView(action: SuccessAction, preimageHex: string): Promise<HTMLElement[]> {
  switch (action.tag) {
    case 'message':
      return shortText(action.message) && action.message.trim() !== '' ? [paragraph(action.message, 'said')] : []
    case 'url': {
      if (!shortText(action.description) || typeof action.url !== 'string') return []
      let url: URL
      try {
        url = new URL(action.url)
      } catch {
        return []
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return []
      const link = document.createElement('a')
      link.href = url.href
      link.textContent = url.href
      link.rel = 'noopener noreferrer'
      link.target = '_blank'
      link.referrerPolicy = 'no-referrer'
      const line = document.createElement('p')
      line.append(link)
      return [paragraph(action.description, 'said'), line]
    }
    case 'aes': {
      if (!shortText(action.description)) return []
      const preimage = bytesOfHex(preimageHex)
      if (!preimage || !globalThis.crypto?.subtle) {
        return [paragraph(action.description, 'said'), paragraph('This page cannot decrypt what the recipient sent with it.', 'muted')]
      }
      const secret = await decrypt(action, preimage)
      if (secret === undefined) return []
      const code = document.createElement('p')
      code.className = 'secret'
      code.textContent = secret
      return [paragraph(action.description, 'said'), code]
    }
    default:
      return []
  }
}
