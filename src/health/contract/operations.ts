// The health room's operation: whether payments work now, for anyone to ask.
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'

export const healthOperations = [
  operation({
    name: 'Health', area: 'guest', auth: 'guest', dialect: 'pub',
    http: { method: 'GET', path: '/api/health', body: 'none' },
    input: Empty, output: Empty,
    summary: 'OK when the node answers and is synced to chain and graph; otherwise an error saying which.',
  }),
]
