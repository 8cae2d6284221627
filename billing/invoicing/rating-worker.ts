/** piscina worker: rates one task (see rating-task.ts). Loaded with tsx (execArgv). */
import { runRating } from './rating-task.ts';

export default runRating;
