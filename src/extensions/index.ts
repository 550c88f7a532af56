// The extensions this daemon hosts. Only the composition root imports this list; core rooms never do.
import type { Extension } from './host/index.js'
import { payrollExtension } from './payroll/index.js'
import { restaurantExtension } from './restaurant/index.js'

export const hostedExtensions: readonly Extension[] = [payrollExtension, restaurantExtension]
