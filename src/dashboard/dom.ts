/** A tiny element builder: enough for tables and lists without a framework. */
import {
  type BrowserButton,
  type BrowserElement,
  type BrowserInput,
  type BrowserListener,
  type BrowserNode,
  browser,
  isNode,
} from './browser.js';

export type Child = BrowserNode | string | number | null | undefined | false | readonly Child[];
type AttributeValue = string | number | boolean | undefined | null | BrowserListener;

interface TagMap {
  input: BrowserInput;
  button: BrowserButton;
}
export type ElementFor<K extends string> = K extends keyof TagMap ? TagMap[K] : BrowserElement;

/** `h('td', {className: 'num', onclick: …}, 'text', child)`: `on…` attributes become listeners. */
export function h<K extends string>(tag: K, attributes: Record<string, AttributeValue> = {}, ...children: Child[]): ElementFor<K> {
  const element = browser().document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else element.setAttribute(name === 'className' ? 'class' : name, value === true ? '' : String(value));
  }
  append(element, children);
  return element as ElementFor<K>;
}

function append(parent: BrowserElement, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(isNode(child) ? child : browser().document.createTextNode(String(child)));
  }
}

/** Replaces a region's content, keeping the region element (and its place in the layout). */
export function fill(region: BrowserElement, ...children: Child[]): void {
  region.replaceChildren();
  append(region, children);
}

export function byId(id: string): BrowserElement {
  const element = browser().document.getElementById(id);
  if (element === null) throw new Error(`page element #${id} missing`);
  return element;
}
