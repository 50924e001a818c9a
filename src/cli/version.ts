/** The version of sdma-lens: package.json's, bundled in when the CLI is built (only this field of it). */
import { version } from '../../package.json';

export const VERSION: string = version;
