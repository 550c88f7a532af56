// Small pieces every page uses: a labelled field, a status line, a data loader and amount formatting.
import type { ComponentChildren, PartialInputHTMLAttributes } from 'preact'
import { useCallback, useEffect, useId, useState } from 'preact/hooks'
import qrcode from 'qrcode-generator'

/** Every input has a visible label tied to it (the accessibility check reads them). */
export function Field(props: { label: string; hint?: string } & PartialInputHTMLAttributes<HTMLInputElement>) {
  const { label, hint, ...input } = props
  return (
    <label class="field">
      <span>{label}</span>
      <input {...(input as Record<string, unknown>)} />
      {hint && <small>{hint}</small>}
    </label>
  )
}

export function Select(props: { label: string; value: string; options: [string, string][]; onChange: (value: string) => void }) {
  // The label names the select by id: a select inside its label would add its chosen option to its name.
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={e => props.onChange((e.currentTarget as HTMLSelectElement).value)}>
        {props.options.map(([value, text]) => (
          <option value={value}>{text}</option>
        ))}
      </select>
    </div>
  )
}

export function Check(props: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label class="check">
      <input type="checkbox" checked={props.checked} onChange={e => props.onChange((e.currentTarget as HTMLInputElement).checked)} />
      <span>{props.label}</span>
    </label>
  )
}

export function Status(props: { error?: string; ok?: string }) {
  if (props.error) return <p class="error" role="alert">{props.error}</p>
  if (props.ok) return <p class="ok" role="status">{props.ok}</p>
  return null
}

export function Section(props: { title: string; children: ComponentChildren }) {
  return (
    <section class="card">
      <h2>{props.title}</h2>
      {props.children}
    </section>
  )
}

/** A table that scrolls sideways inside itself on a narrow screen, never the page. */
export function Table(props: { caption: string; head: string[]; rows: ComponentChildren[][]; empty?: string }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={props.caption}>
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>{props.head.map(h => <th scope="col">{h}</th>)}</tr>
        </thead>
        <tbody>
          {props.rows.length === 0 ? (
            <tr>
              <td colSpan={props.head.length}>{props.empty ?? 'Nothing yet.'}</td>
            </tr>
          ) : (
            // Each cell carries its column's name: on a narrow screen a row is shown as a card of labelled lines.
            props.rows.map(row => <tr>{row.map((cell, i) => <td data-label={props.head[i] ?? ''}>{cell}</td>)}</tr>)
          )}
        </tbody>
      </table>
    </div>
  )
}

/** Loads with `load` now and whenever `reload` is called; errors become a message. */
/** Loads once, and again every `everyMs` while the page shows (the overview's live figures). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = [], everyMs?: number) {
  const [data, setData] = useState<T | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const reload = useCallback(() => {
    load().then(
      value => {
        setData(value)
        setError(undefined)
      },
      (err: Error) => setError(err.message),
    )
  }, deps)
  useEffect(() => {
    reload()
    if (!everyMs) return undefined
    const timer = setInterval(reload, everyMs)
    return () => clearInterval(timer)
  }, [reload])
  return { data, error, reload }
}

/** Runs an action and keeps its outcome for the status line. */
export function useAction() {
  const [error, setError] = useState<string | undefined>()
  const [ok, setOk] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)
  const run = async (action: () => Promise<string | void>) => {
    setBusy(true)
    setError(undefined)
    setOk(undefined)
    try {
      const message = await action()
      if (message) setOk(message)
    } catch (err) {
      setError((err as Error).message)
    } finally {
      setBusy(false)
    }
  }
  return { error, ok, busy, run }
}

export const sats = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'sat' : 'sats'}`
export const when = (unixSeconds: number) => (unixSeconds ? new Date(unixSeconds * 1000).toLocaleString() : '—')
export const short = (text: string, keep = 10) => (text.length > keep * 2 + 1 ? `${text.slice(0, keep)}…${text.slice(-keep)}` : text)

/** A QR code as a GIF data URL (the CSP allows data: images and no inline markup). */
export function Qr(props: { text: string; label: string }) {
  const qr = qrcode(0, 'M')
  qr.addData(props.text)
  qr.make()
  return <img class="qr" src={qr.createDataURL(6, 16)} alt={props.label} />
}

export function submit(handler: () => void) {
  return (e: Event) => {
    e.preventDefault()
    handler()
  }
}

/**
 * Copies `text` to the clipboard (a secret shown once, a connection string, an invoice) and says so on the button.
 * Where the page cannot write the clipboard (an http:// page on another host is no secure context), it says that the
 * text must be selected and copied by hand.
 */
export function Copy(props: { text: string; what: string }) {
  const [said, setSaid] = useState('Copy')
  const copy = () =>
    (navigator.clipboard?.writeText(props.text) ?? Promise.reject(new Error('no clipboard'))).then(
      () => setSaid('Copied'),
      () => setSaid('Select and copy it by hand'),
    )
  return (
    <button type="button" class="secondary" aria-label={`Copy ${props.what}`} onClick={() => void copy()}>{said}</button>
  )
}

/** The console's address of a wallet's own page (pages/wallet.tsx). */
export const walletHref = (userId: string) => `#/wallet?id=${encodeURIComponent(userId)}`
