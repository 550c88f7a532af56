// The menu tree editor: categories nest; each item can be renamed, repriced, sold out or hidden, and gets option
// groups with priced options and availability windows. Each change is one call to the restaurant's routes,
// then the menu is read again.
import { useState } from 'preact/hooks'
import { call } from '../../../console/ui/api.js'
import { Check, Field, Section, Select, Status, submit, useAction } from '../../../console/ui/parts.js'

const base = '/restaurant/api/v1'

interface TreeNode {
  id: string
  name: string
  depth: number
  children: TreeNode[]
}

interface Item {
  id: string
  node_id: string | null
  name: string
  price: string
  active: boolean
  sold_out: boolean
  modifier_groups: { id: string; name: string; modifiers: { id: string; name: string; price_delta: string }[] }[]
  availability_windows: { id: string; days: string[]; start: string; end: string }[]
}

export interface Menu {
  restaurant: { id: string; currency: string }
  tree: TreeNode[]
  items: Item[]
}

const flatten = (nodes: TreeNode[]): TreeNode[] => nodes.flatMap(n => [n, ...flatten(n.children)])

export function MenuEditor(props: { apiKey: string; menu: Menu; reload: () => Promise<void> }) {
  const { apiKey, menu } = props
  const action = useAction()
  const nodes = flatten(menu.tree)
  const [category, setCategory] = useState({ name: '', parent: '' })
  const [item, setItem] = useState({ name: '', price: '', node: '' })
  const nodeOptions: [string, string][] = nodes.map(n => [n.id, `${'— '.repeat(n.depth)}${n.name}`])
  const done = async (message: string) => {
    await props.reload()
    return message
  }

  const renderNode = (node: TreeNode) => (
    <li class="menu-node">
      <strong>{node.name}</strong>
      <ul class="menu-items">{menu.items.filter(i => i.node_id === node.id).map(i => <ItemEditor key={i.id} apiKey={apiKey} item={i} currency={menu.restaurant.currency} reload={props.reload} />)}</ul>
      {node.children.length > 0 && <ul>{node.children.map(renderNode)}</ul>}
    </li>
  )
  return (
    <Section title="Menu">
      <Status error={action.error} ok={action.ok} />
      <ul class="menu-tree">{menu.tree.map(renderNode)}</ul>
      <div class="grid">
        <form onSubmit={submit(() => action.run(async () => {
          await call(`${base}/menu_nodes`, { apiKey, body: { restaurant_id: menu.restaurant.id, name: category.name.trim(), parent_id: category.parent || null } })
          setCategory({ name: '', parent: category.parent })
          return done('Category added.')
        }))}>
          <h3>Add a category</h3>
          <Field label="Category name" name="category-name" required value={category.name} onInput={e => setCategory({ ...category, name: e.currentTarget.value })} />
          <Select label="Inside" value={category.parent} onChange={parent => setCategory({ ...category, parent })} options={[['', '(top level)'], ...nodeOptions]} />
          <button type="submit">Add category</button>
        </form>
        <form onSubmit={submit(() => action.run(async () => {
          await call(`${base}/menu_items`, { apiKey, body: { restaurant_id: menu.restaurant.id, node_id: item.node || nodes[0]?.id || null, name: item.name.trim(), price: item.price.trim() } })
          setItem({ name: '', price: '', node: item.node })
          return done('Item added.')
        }))}>
          <h3>Add an item</h3>
          <Field label="Item name" name="item-name" required value={item.name} onInput={e => setItem({ ...item, name: e.currentTarget.value })} />
          <Field label={`Price (${menu.restaurant.currency})`} name="item-price" required inputMode="decimal" value={item.price} onInput={e => setItem({ ...item, price: e.currentTarget.value })} />
          <Select label="Category" value={item.node || nodes[0]?.id || ''} onChange={node => setItem({ ...item, node })} options={nodeOptions} />
          <button type="submit" disabled={nodes.length === 0}>Add item</button>
        </form>
      </div>
    </Section>
  )
}

function ItemEditor(props: { apiKey: string; item: Item; currency: string; reload: () => Promise<void> }) {
  const { apiKey, item } = props
  const [edit, setEdit] = useState({ name: item.name, price: item.price, sold_out: item.sold_out, active: item.active })
  const [group, setGroup] = useState({ name: '', max: '1' })
  const [option, setOption] = useState({ group: '', name: '', price: '0' })
  const [window, setWindow] = useState({ days: 'mon,tue,wed,thu,fri,sat,sun', start: '11:00', end: '22:00' })
  const [open, setOpen] = useState(false)
  const action = useAction()
  const saved = async (message: string) => {
    await props.reload()
    return message
  }
  const label = (text: string) => `${text} of ${item.name}`
  /** Deletes one part of the item (an option, a group, hours) after the operator confirms. */
  const remove = (path: string, question: string, done: string) =>
    confirm(question) &&
    action.run(async () => {
      await call(path, { method: 'DELETE', apiKey })
      return saved(done)
    })
  return (
    <li class="menu-item" data-item-id={item.id}>
      <form class="row" onSubmit={submit(() => action.run(async () => {
        await call(`${base}/menu_items/${item.id}`, { method: 'PUT', apiKey, body: { name: edit.name.trim(), price: edit.price.trim(), sold_out: edit.sold_out, active: edit.active } })
        return saved(`${edit.name.trim()} saved.`)
      }))}>
        <Field label={label('Name')} value={edit.name} onInput={e => setEdit({ ...edit, name: e.currentTarget.value })} />
        <Field label={label(`Price (${props.currency})`)} inputMode="decimal" value={edit.price} onInput={e => setEdit({ ...edit, price: e.currentTarget.value })} />
        <Check label="Sold out" checked={edit.sold_out} onChange={sold_out => setEdit({ ...edit, sold_out })} />
        <Check label="On the menu" checked={edit.active} onChange={active => setEdit({ ...edit, active })} />
        <button type="submit">Save</button>
        <button type="button" class="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>Options &amp; hours</button>
        <button type="button" class="danger" aria-label={`Delete ${item.name}`} onClick={() => confirm(`Delete ${item.name}?`) && action.run(async () => {
          await call(`${base}/menu_items/${item.id}`, { method: 'DELETE', apiKey })
          return saved('Item deleted.')
        })}>Delete</button>
      </form>
      <Status error={action.error} ok={action.ok} />
      {open && (
        <div class="item-extra">
          <ul>
            {item.modifier_groups.map(g => (
              <li>
                {g.name}:{' '}
                {g.modifiers.length === 0 && 'no option yet'}
                {g.modifiers.map(m => (
                  <span class="option">
                    {m.name}{m.price_delta !== '0' ? ` (+${m.price_delta})` : ''}{' '}
                    <button type="button" class="link danger" aria-label={`Remove option ${m.name} of ${item.name}`} onClick={() => remove(`${base}/modifiers/${m.id}`, `Remove the option ${m.name}?`, 'Option removed.')}>×</button>{' '}
                  </span>
                ))}
                <button type="button" class="link danger" aria-label={`Remove group ${g.name} of ${item.name}`} onClick={() => remove(`${base}/modifier_groups/${g.id}`, `Remove the group ${g.name} and its options?`, 'Option group removed.')}>Remove group</button>
              </li>
            ))}
            {item.availability_windows.map(w => (
              <li>
                Available {w.days.join(' ')} {w.start}–{w.end}{' '}
                <button type="button" class="link danger" aria-label={`Remove hours ${w.days.join(' ')} ${w.start}–${w.end} of ${item.name}`} onClick={() => remove(`${base}/availability_windows/${w.id}`, `Remove the hours ${w.start}–${w.end}?`, 'Hours removed.')}>Remove</button>
              </li>
            ))}
          </ul>
          <form class="row" onSubmit={submit(() => action.run(async () => {
            await call(`${base}/modifier_groups`, { apiKey, body: { item_id: item.id, name: group.name.trim(), min_select: 0, max_select: Number(group.max) || null } })
            setGroup({ name: '', max: '1' })
            return saved('Option group added.')
          }))}>
            <Field label={label('New option group')} required value={group.name} onInput={e => setGroup({ ...group, name: e.currentTarget.value })} />
            <Field label="Most choices (0: any)" type="number" min="0" value={group.max} onInput={e => setGroup({ ...group, max: e.currentTarget.value })} />
            <button type="submit">Add group</button>
          </form>
          {item.modifier_groups.length > 0 && (
            <form class="row" onSubmit={submit(() => action.run(async () => {
              await call(`${base}/modifiers`, { apiKey, body: { group_id: option.group || item.modifier_groups[0]!.id, name: option.name.trim(), price_delta: option.price.trim() || '0' } })
              setOption({ ...option, name: '', price: '0' })
              return saved('Option added.')
            }))}>
              <Select label="Group" value={option.group || item.modifier_groups[0]!.id} onChange={g => setOption({ ...option, group: g })} options={item.modifier_groups.map(g => [g.id, g.name])} />
              <Field label={label('New option')} required value={option.name} onInput={e => setOption({ ...option, name: e.currentTarget.value })} />
              <Field label="Extra price" inputMode="decimal" value={option.price} onInput={e => setOption({ ...option, price: e.currentTarget.value })} />
              <button type="submit">Add option</button>
            </form>
          )}
          <form class="row" onSubmit={submit(() => action.run(async () => {
            await call(`${base}/availability_windows`, { apiKey, body: { item_id: item.id, days: window.days.split(/[ ,]+/).filter(Boolean), start: window.start, end: window.end } })
            return saved('Hours added.')
          }))}>
            <Field label="Days (mon…sun)" value={window.days} onInput={e => setWindow({ ...window, days: e.currentTarget.value })} />
            <Field label="From" type="time" value={window.start} onInput={e => setWindow({ ...window, start: e.currentTarget.value })} />
            <Field label="Until" type="time" value={window.end} onInput={e => setWindow({ ...window, end: e.currentTarget.value })} />
            <button type="submit">Add hours</button>
          </form>
        </div>
      )}
    </li>
  )
}
