// @ts-check
/** A promise on the page: its token, estimated completion and a countdown; redeemed at the estimate or on a click. */
import { el } from './form.js';

/**
 * Fills a promise panel and starts its countdown. `redeem()` and `cancel()` run a round (app.js); the countdown
 * stops when either starts or when the panel leaves the page.
 * @param {HTMLElement} panel @param {{ token: string, estimatedCompletion?: string }} outcome
 * @param {{ redeem: () => void, cancel: () => void }} actions
 */
export function promisePanel(panel, outcome, actions) {
  const due = outcome.estimatedCompletion ? Date.parse(outcome.estimatedCompletion) : Date.now();
  const countdown = el('span', { class: 'countdown', 'data-countdown': '' });
  const auto = el('input', { type: 'checkbox', id: 'auto-redeem' });
  auto.checked = true;
  const redeemButton = el('button', { type: 'button', class: 'primary', text: 'Redeem now' });
  const cancelButton = el('button', { type: 'button', text: 'Cancel' });
  panel.append(
    el('p', { class: 'row' }, [
      el('span', { class: 'label', text: 'token: ' }),
      el('code', { class: 'token', text: outcome.token }),
    ]),
    el('p', { class: 'row' }, [
      el('span', { class: 'label', text: 'estimated completion: ' }),
      el('code', { text: outcome.estimatedCompletion ?? 'not given' }),
    ]),
    el('p', { class: 'row' }, [countdown]),
    el('div', { class: 'actions' }, [
      el('label', { class: 'inline', for: 'auto-redeem' }, [auto, ' Redeem automatically']),
      redeemButton,
      cancelButton,
    ]),
  );
  let done = false;
  const stop = () => {
    done = true;
    clearInterval(timer);
    redeemButton.disabled = true;
    cancelButton.disabled = true;
  };
  const tick = () => {
    if (!panel.isConnected) return stop();
    const left = due - Date.now();
    countdown.textContent =
      left > 0
        ? `ready in ${(left / 1000).toFixed(1)} s`
        : auto.checked
          ? 'redeeming…'
          : 'should be ready: redeem it';
    if (left <= 0 && auto.checked && !done) {
      stop();
      actions.redeem();
    }
  };
  const timer = setInterval(tick, 100);
  tick();
  redeemButton.addEventListener('click', () => {
    stop();
    actions.redeem();
  });
  cancelButton.addEventListener('click', () => {
    stop();
    actions.cancel();
  });
}
