// A field that asks for a wallet: typing searches the wallets (OperatorSearchUsers, by identifier, user id or npub)
// and offers them as options to pick, so nobody copies 64 hex characters by hand; a pasted id is taken as it is.
import { useEffect, useId, useState } from 'preact/hooks'
import { call } from './api.js'
import { sats, short } from './parts.js'

export interface WalletRow {
  user_id: string
  identifier: string
  app_name: string
  app_id: string
  nostr_pub: string
  balance_sats: number
  locked: boolean
  created_at: number
}

/** Wallets matching `query` (part of an identifier, a user id or a Nostr key), newest first. */
export const findWallets = (query: string, limit = 20) =>
  call<{ users: WalletRow[] }>('/api/operator/users', { query: { query, limit } }).then(r => r.users)

const maxOptions = 8

/**
 * `pick` says what the form wants: a wallet's user id (payroll), or an app user's identifier (the calls made as an
 * app). An app's owner wallet has no identifier, so it is offered only for user ids.
 */
export function WalletPicker(props: {
  label: string
  value: string
  onChange: (value: string) => void
  pick: 'user_id' | 'identifier'
  name?: string
  required?: boolean
}) {
  const id = useId()
  const [open, setOpen] = useState(false)
  const [found, setFound] = useState<WalletRow[]>([])
  const [active, setActive] = useState(0)
  const text = props.value.trim()
  const keyOf = (row: WalletRow) => (props.pick === 'user_id' ? row.user_id : row.identifier)

  useEffect(() => {
    if (!text) return setFound([])
    let current = true
    findWallets(text).then(
      rows => current && setFound(rows.filter(row => keyOf(row) !== '').slice(0, maxOptions)),
      () => current && setFound([]),
    )
    return () => {
      current = false
    }
  }, [text, props.pick])

  const chosen = found.find(row => keyOf(row) === text)
  // A value that already names a wallet exactly needs no list under it (a pasted id, an option just picked).
  const shown = open && !chosen && found.length > 0
  const choose = (row: WalletRow) => {
    props.onChange(keyOf(row))
    setOpen(false)
  }
  const onKeyDown = (e: KeyboardEvent) => {
    if (!shown) return
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      setActive(i => (i + (e.key === 'ArrowDown' ? 1 : found.length - 1)) % found.length)
    } else if (e.key === 'Enter') {
      e.preventDefault()
      choose(found[Math.min(active, found.length - 1)]!)
    } else if (e.key === 'Escape') {
      setOpen(false)
    }
  }
  return (
    <div class="field picker">
      <label for={id}>{props.label}</label>
      <input id={id} name={props.name} required={props.required} value={props.value} autoComplete="off"
        role="combobox" aria-autocomplete="list" aria-expanded={shown} aria-controls={`${id}-options`}
        placeholder={props.pick === 'user_id' ? 'Type a name, or paste a wallet id' : 'Type a name, or paste an identifier'}
        onInput={e => {
          props.onChange(e.currentTarget.value)
          setActive(0)
          setOpen(true)
        }}
        onFocus={() => setOpen(true)} onBlur={() => setOpen(false)} onKeyDown={onKeyDown} />
      {shown && (
        <ul class="options" role="listbox" id={`${id}-options`} aria-label="Matching wallets">
          {found.map((row, i) => (
            // Chosen on mousedown: a click would come after the input's blur has closed the list.
            <li role="option" aria-selected={i === active} onMouseDown={e => (e.preventDefault(), choose(row))}>
              <strong>{row.identifier || `owner of ${row.app_name}`}</strong> · {row.app_name} · {sats(row.balance_sats)}
              {row.locked ? ' · banned' : ''} <span class="mono">{short(row.user_id, 6)}</span>
            </li>
          ))}
        </ul>
      )}
      {chosen && <small data-testid="picked">{chosen.identifier || `owner of ${chosen.app_name}`} ({chosen.app_name}), {sats(chosen.balance_sats)}</small>}
    </div>
  )
}
