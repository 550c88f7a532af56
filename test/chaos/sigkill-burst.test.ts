// SIGKILL at random moments under the 'burst' load (load-mixes.ts).
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('burst', 8, 12)
