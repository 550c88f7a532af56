// Replies longer than `[nostr] max_content_length` characters travel as shards:
// fixed-size slices of the reply JSON, each its own event with plaintext
// `{"part","index","totalShards","shardsId"}`; the client joins the parts of one shardsId in index order.

export interface Shard {
  part: string
  index: number
  totalShards: number
  shardsId: string
}

/** The plaintexts to send: the reply itself when short enough, else one shard JSON per slice. */
export function shardPlaintexts(text: string, maxLength: number, shardsId: string): string[] {
  if (text.length <= maxLength) return [text]
  const totalShards = Math.ceil(text.length / maxLength)
  return Array.from({ length: totalShards }, (_, index) =>
    JSON.stringify({ part: text.slice(index * maxLength, (index + 1) * maxLength), index, totalShards, shardsId } satisfies Shard),
  )
}
