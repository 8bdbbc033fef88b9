// A read-only stand-in for the widget model, for pages without a kernel (the HTML report, tests). It holds
// the state the Python side would sync (binary columns as Uint8Array/DataView or base64 strings),
// answers get/on/off, keeps set() local and never talks to a kernel.

export function createStaticModel(state, { onSend } = {}) {
  const values = { ...state };
  const listeners = new Map();
  return {
    get: (k) => values[k],
    set: (k, v) => {
      values[k] = v;
      for (const fn of listeners.get("change:" + k) || []) fn({ new: v });
    },
    on: (ev, fn) => { if (!listeners.has(ev)) listeners.set(ev, new Set()); listeners.get(ev).add(fn); },
    off: (ev, fn) => { if (!ev) listeners.clear(); else if (!fn) listeners.delete(ev); else listeners.get(ev)?.delete(fn); },
    save_changes: () => {},
    send: (msg, callbacks, buffers) => { if (onSend) onSend(msg, buffers); },
    widget_manager: null,
    values,
  };
}

// Render a view from a state object into `el` with this bundle's default export.
export async function renderStatic(widget, state, el, opts) {
  const model = createStaticModel(state, opts);
  const cleanup = await widget.render({ model, el });
  return { model, cleanup };
}
