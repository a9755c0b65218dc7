/**
 * A module loaded on first use and then kept: `const loadJose = lazyModule(() => import('jose'))`. The service's
 * optional heavy dependencies (pg, jose, @simplewebauthn/server) load this way so that `sandbox up` does not wait for
 * code most sandboxes never run.
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load();
    return loading;
  };
}
