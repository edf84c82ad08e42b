// A confirmation before every change: a modal <dialog>, keyboard-operable (Escape cancels), focus on Cancel.

/** Resolves to true when the admin confirms `text`. */
export function confirmAction(title, text, actionLabel = 'Confirm') {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = actionLabel;
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.returnValue = 'cancel';
    dialog.showModal();
    document.getElementById('confirm-cancel').focus();
  });
}
