// The restaurant extension's page in the operator's console, listed in src/extensions/console.ts.
import type { NavPage } from '../../../console/ui/nav-page.js'
import { Restaurant } from './restaurant.js'

export const restaurantConsolePages: readonly NavPage[] = [['restaurant', 'Restaurant', Restaurant]]
