// The menu as a tree of nodes (docs/restaurant.md, "Menu tree"). Depth and path are always derived from the
// parent, never taken from a caller: root depth 0, path `/<root id>/…/<own id>`. A move re-derives the whole
// subtree in one transaction, and is refused when it would make a node its own ancestor or push any node of the
// subtree past the depth cap.
import { OperationError } from '../../bus/index.js'
import type { MenuNodeRow, MenuStatements } from './menu-store.js'
import { menuNode } from './wire.js'

export interface Placement {
  parent_id: string | null
  depth: number
  path: string
}

/** Where a node with `id` sits under `parent` (or as a root). */
export function placementUnder(parent: MenuNodeRow | null, id: string): Placement {
  return parent
    ? { parent_id: parent.id, depth: parent.depth + 1, path: `${parent.path}/${id}` }
    : { parent_id: null, depth: 0, path: `/${id}` }
}

export function checkDepth(depth: number, maxDepth: number): void {
  if (depth > maxDepth) {
    throw new OperationError(
      'invalid_input',
      `menu depth cap exceeded: a node would sit at depth ${depth}, the cap is ${maxDepth} (root = 0)`,
      { status: 400 },
    )
  }
}

/** The node and its descendants, the node first. */
export function subtreeOf(store: MenuStatements, node: MenuNodeRow): Promise<MenuNodeRow[]> {
  return store.subtree({ id: node.id, prefix: `${node.path}/` })
}

/**
 * Moves `node` under `newParent` (null: to the root) and re-derives depth and path of its subtree. Returns the
 * moved subtree as it is now. The caller runs this inside a transaction, with `node` and `newParent` read in it
 * (a SERIALIZABLE one: two moves at once on PostgreSQL must not each pass the ancestor check against the other's
 * old paths).
 */
export async function moveNode(
  store: MenuStatements,
  node: MenuNodeRow,
  newParent: MenuNodeRow | null,
  maxDepth: number,
  now: number,
): Promise<MenuNodeRow[]> {
  if (newParent && (newParent.id === node.id || newParent.path.startsWith(`${node.path}/`))) {
    throw new OperationError(
      'invalid_input',
      `cannot move menu node ${node.id} under ${newParent.id}: a node cannot become its own ancestor`,
      { status: 400 },
    )
  }
  const subtree = await subtreeOf(store, node)
  const target = placementUnder(newParent, node.id)
  const shift = target.depth - node.depth
  const deepest = Math.max(...subtree.map(n => n.depth)) + shift
  checkDepth(deepest, maxDepth)
  for (const member of subtree) {
    const isRoot = member.id === node.id
    await store.placeNode(
      isRoot ? target.parent_id : member.parent_id,
      member.depth + shift,
      target.path + member.path.slice(node.path.length),
      isRoot ? now : member.updated_at,
      member.id,
    )
  }
  return subtreeOf(store, (await store.node(node.id))!)
}

export type TreeNode = ReturnType<typeof menuNode> & { children: TreeNode[] }

/** Nested nodes, siblings sorted by `sort` then name (then id, so equal names keep one order). */
export function nestedTree(nodes: readonly MenuNodeRow[]): TreeNode[] {
  const byParent = new Map<string | null, MenuNodeRow[]>()
  for (const node of nodes) {
    const siblings = byParent.get(node.parent_id) ?? []
    siblings.push(node)
    byParent.set(node.parent_id, siblings)
  }
  const build = (parentId: string | null): TreeNode[] =>
    (byParent.get(parentId) ?? [])
      .sort((a, b) => a.sort - b.sort || a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
      .map(node => ({ ...menuNode(node), children: build(node.id) }))
  return build(null)
}

/** The nodes from the root down to `nodeId` (inclusive), read from its path; empty for a detached item. */
export async function ancestry(store: MenuStatements, nodeId: string | null): Promise<MenuNodeRow[]> {
  if (nodeId === null) return []
  const node = await store.node(nodeId)
  if (!node) return []
  const ids = node.path.split('/').filter(id => id !== '')
  const nodes = await Promise.all(ids.map(id => (id === node.id ? node : store.node(id))))
  return nodes.filter((n): n is MenuNodeRow => n !== undefined)
}
