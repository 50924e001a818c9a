/** DOM building, shared with the sweep panel: text goes in through textContent, never markup. */
export { el } from '../sweep/dom';
