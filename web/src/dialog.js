// The floating panel is a modal dialog: Tab and Shift-Tab stay inside it, and a keyboard
// shortcut (Ctrl-K or Cmd-K by default, the `shortcut` attribute) opens it from anywhere.
const FOCUSABLE = "button, input, a[href]";

/** On Tab at the last control (Shift-Tab at the first, either from outside), wrap around inside `panel`. */
export function trapFocus(event, panel, active) {
  const items = [...panel.querySelectorAll(FOCUSABLE)].filter((item) => !item.disabled && item.getClientRects().length);
  if (!items.length) return;
  const at = items.indexOf(active);
  if (at === -1 || at === (event.shiftKey ? 0 : items.length - 1)) {
    event.preventDefault();
    items[event.shiftKey ? items.length - 1 : 0].focus();
  }
}

/** The shortcut's key from the `shortcut` attribute: "k" by default, none for "off" or "". */
export function shortcutKey(attribute) {
  if (attribute === null) return "k";
  const key = attribute.trim().toLowerCase();
  return key === "off" ? "" : key;
}

/** Whether `event` is Ctrl or Cmd with `key` (and no Alt: AltGr types characters). */
export function isShortcut(event, key) {
  return Boolean(key) && (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === key;
}
