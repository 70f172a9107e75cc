// The reason prompt every change and every payload reveal goes through.

const dialog = () => document.getElementById('reason-dialog');

/**
 * Asks for a reason; resolves to the trimmed reason, or null when the person backs out. With `fixedReason` the
 * reason is shown, not asked (a bulk run must carry the reason of its dry run), and the dialog only confirms.
 */
export function askReason(title, text, confirmLabel, fixedReason) {
  const d = dialog();
  const input = document.getElementById('reason-input');
  const confirm = document.getElementById('reason-confirm');
  const cancel = document.getElementById('reason-cancel');
  const form = document.getElementById('reason-form');
  document.getElementById('reason-title').textContent = title;
  document.getElementById('reason-text').textContent = text || '';
  confirm.textContent = confirmLabel || 'Confirm';
  input.value = fixedReason || '';
  input.readOnly = !!fixedReason;
  confirm.disabled = !fixedReason;
  return new Promise(resolve => {
    const done = value => {
      input.removeEventListener('input', onInput);
      form.removeEventListener('submit', onSubmit);
      cancel.removeEventListener('click', onCancel);
      d.removeEventListener('cancel', onCancel);
      if (d.open) d.close();
      resolve(value);
    };
    const onInput = () => { confirm.disabled = input.value.trim() === ''; };
    const onSubmit = e => { e.preventDefault(); if (input.value.trim() !== '') done(input.value.trim()); };
    const onCancel = e => { e.preventDefault(); done(null); };
    input.addEventListener('input', onInput);
    form.addEventListener('submit', onSubmit);
    cancel.addEventListener('click', onCancel);
    d.addEventListener('cancel', onCancel);
    d.showModal();
    (fixedReason ? confirm : input).focus();
  });
}
