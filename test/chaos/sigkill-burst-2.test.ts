// SIGKILL at random moments under the 'burst' load (load-mixes.ts), part 2 of 2.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('burst', 2, 13)
