// SIGKILL at random moments under the 'relay-requests' load (load-mixes.ts), part 2 of 2.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('relay-requests', 2, 6)
