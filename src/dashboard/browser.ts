/**
 * The slice of the browser the page uses, typed here instead of through TypeScript's DOM library: the project's
 * one tsconfig compiles Node code, and pulling `lib.dom` into it would retype `fetch` and friends for every
 * Node file. These interfaces are structural subsets of the real DOM ones, so the real objects fit them.
 */

/** Anything that can sit in the document tree; `nodeType` tells nodes from plain values at run time. */
export interface BrowserNode {
  readonly nodeType: number;
}

export interface BrowserEvent {
  readonly key?: string;
}

export type BrowserListener = (event: BrowserEvent) => void;

export interface BrowserElement extends BrowserNode {
  textContent: string | null;
  hidden: boolean;
  readonly dataset: Record<string, string | undefined>;
  setAttribute(name: string, value: string): void;
  toggleAttribute(name: string, force?: boolean): boolean;
  addEventListener(type: string, listener: BrowserListener): void;
  appendChild(node: BrowserNode): unknown;
  replaceChildren(...nodes: BrowserNode[]): void;
  querySelector(selectors: string): BrowserElement | null;
  querySelectorAll(selectors: string): ArrayLike<BrowserElement>;
}

export interface BrowserInput extends BrowserElement {
  value: string;
}

export interface BrowserButton extends BrowserElement {
  disabled: boolean;
}

export interface BrowserMeta extends BrowserElement {
  readonly content: string;
}

export interface BrowserDocument {
  readonly visibilityState: string;
  createElement(tag: string): BrowserElement;
  createTextNode(text: string): BrowserNode;
  getElementById(id: string): BrowserElement | null;
  querySelector(selectors: string): BrowserElement | null;
  querySelectorAll(selectors: string): ArrayLike<BrowserElement>;
  addEventListener(type: string, listener: BrowserListener): void;
}

export interface BrowserGlobals {
  document: BrowserDocument;
  location: { readonly protocol: string; readonly host: string; readonly pathname: string; readonly hash: string };
  history: { replaceState(data: unknown, unused: string, url: string): void };
  sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
}

/** The page's window. Only called in the browser (Node tests import the pure modules, never this). */
export function browser(): BrowserGlobals {
  return globalThis as unknown as BrowserGlobals;
}

export function isNode(value: unknown): value is BrowserNode {
  return typeof value === 'object' && value !== null && typeof (value as { nodeType?: unknown }).nodeType === 'number';
}
