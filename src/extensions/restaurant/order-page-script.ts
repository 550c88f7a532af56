// The ordering page's browser script, shipped inline as text (the page has no external assets and the daemon has
// no browser build step). Plain ES2020 that every current browser runs; it builds every element with DOM calls
// and sets text with textContent, so no menu text is ever parsed as HTML. It expects `qrCodeSvg` (order-page.ts, on the `qrcode-generator` library)
// to be defined before it. Written without template literals so this file can hold it in one.

export const orderPageScript = String.raw`
'use strict';
(function () {
  var data = JSON.parse(document.getElementById('menu-data').textContent);
  var api = data.apiBase;
  var restaurant = data.restaurant;
  var items = {};
  data.items.forEach(function (item) { items[item.id] = item; });
  var cart = [];
  var quoteTimer = null;
  var pollTimer = null;
  var $ = function (id) { return document.getElementById(id); };

  // Amounts are decimal strings; BigInt of 10^-8 units keeps sums exact, as on the server.
  var SCALE = 100000000n;
  function toUnits(text) {
    var parts = String(text).split('.');
    var fraction = (parts[1] || '').padEnd(8, '0').slice(0, 8);
    return BigInt(parts[0]) * SCALE + BigInt(fraction);
  }
  function formatUnits(units) {
    var whole = (units / SCALE).toString();
    var fraction = (units % SCALE).toString().padStart(8, '0').replace(/0+$/, '');
    if (restaurant.currency === 'sat') return (fraction ? whole + '.' + fraction : whole) + ' sat';
    return whole + '.' + fraction.padEnd(2, '0') + ' ' + restaurant.currency;
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === 'text') node.textContent = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) { node.appendChild(child); });
    return node;
  }

  function showError(message) {
    var box = $('error');
    box.textContent = message || '';
    box.hidden = !message;
  }

  async function call(method, path, body) {
    var res = await fetch(api + path, {
      method: method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body)
    });
    var json = null;
    try { json = await res.json(); } catch (e) { json = null; }
    if (!res.ok) throw new Error((json && json.detail) || ('HTTP ' + res.status));
    return json;
  }

  // The options dialog: one fieldset per modifier group, radios when exactly one must be chosen.
  var editing = null;
  function openOptions(item) {
    editing = item;
    $('options-title').textContent = item.name;
    var groups = $('options-groups');
    groups.replaceChildren();
    item.modifier_groups.forEach(function (group) {
      var single = group.min_select === 1 && group.max_select === 1;
      var rule = single ? 'choose 1'
        : group.max_select === null ? (group.min_select > 0 ? 'at least ' + group.min_select : 'optional')
        : group.min_select === 0 ? 'up to ' + group.max_select
        : group.min_select + ' to ' + group.max_select;
      var fieldset = el('fieldset', { 'data-group-id': group.id }, [el('legend', { text: group.name + ' (' + rule + ')' })]);
      group.modifiers.forEach(function (modifier) {
        var input = el('input', { type: single ? 'radio' : 'checkbox', name: 'group-' + group.id, value: modifier.id });
        var delta = toUnits(modifier.price_delta);
        var label = modifier.name + (delta > 0n ? ' (+' + formatUnits(delta) + ')' : '');
        fieldset.appendChild(el('label', {}, [input, el('span', { text: label })]));
      });
      groups.appendChild(fieldset);
    });
    $('options-quantity').value = '1';
    $('options-note').value = '';
    $('options-error').hidden = true;
    $('options').showModal();
  }

  function chosenInDialog() {
    var chosen = [];
    var problem = null;
    editing.modifier_groups.forEach(function (group) {
      var picked = Array.prototype.slice.call(document.querySelectorAll('input[name="group-' + group.id + '"]:checked'))
        .map(function (input) { return input.value; });
      var max = group.max_select;
      if (picked.length < group.min_select || (max !== null && picked.length > max)) {
        problem = problem || ('Choose ' + (max === null ? 'at least ' + group.min_select
          : group.min_select === max ? max : group.min_select + ' to ' + max) + ' of ' + group.name + '.');
      }
      chosen = chosen.concat(picked);
    });
    return { chosen: chosen, problem: problem };
  }

  function addLine(item, modifierIds, quantity, note) {
    var modifiers = [];
    item.modifier_groups.forEach(function (group) {
      group.modifiers.forEach(function (m) { if (modifierIds.indexOf(m.id) >= 0) modifiers.push(m); });
    });
    var key = item.id + '|' + modifierIds.slice().sort().join(',') + '|' + note;
    var existing = cart.find(function (line) { return line.key === key; });
    if (existing) existing.quantity += quantity;
    else {
      var unit = modifiers.reduce(function (sum, m) { return sum + toUnits(m.price_delta); }, toUnits(item.price));
      cart.push({ key: key, item: item, modifiers: modifiers, quantity: quantity, note: note, unit: unit });
    }
    renderCart();
  }

  function renderCart() {
    var list = $('cart-lines');
    list.replaceChildren();
    var total = 0n;
    cart.forEach(function (line, index) {
      var lineTotal = line.unit * BigInt(line.quantity);
      total += lineTotal;
      var minus = el('button', { type: 'button', 'aria-label': 'One less', text: '−' });
      var plus = el('button', { type: 'button', 'aria-label': 'One more', text: '+' });
      minus.onclick = function () { line.quantity -= 1; if (line.quantity < 1) cart.splice(index, 1); renderCart(); };
      plus.onclick = function () { line.quantity += 1; renderCart(); };
      var children = [
        el('div', { class: 'line-head' }, [el('span', { class: 'line-name', text: line.item.name }), el('span', { class: 'line-total', text: formatUnits(lineTotal) })])
      ];
      if (line.modifiers.length) children.push(el('div', { class: 'line-mods', text: line.modifiers.map(function (m) { return m.name; }).join(', ') }));
      if (line.note) children.push(el('div', { class: 'line-mods', text: 'Note: ' + line.note }));
      children.push(el('div', { class: 'line-qty' }, [minus, el('span', { class: 'line-quantity', text: String(line.quantity) }), plus]));
      list.appendChild(el('li', { 'data-item-id': line.item.id }, children));
    });
    $('cart-empty').hidden = cart.length > 0;
    $('checkout').hidden = cart.length === 0;
    $('cart-total').textContent = cart.length ? formatUnits(total) : '–';
    $('cart-sats').textContent = '';
    showError('');
    clearTimeout(quoteTimer);
    if (cart.length) quoteTimer = setTimeout(quote, 250);
  }

  function cartBody() {
    return cart.map(function (line) {
      var entry = { item_id: line.item.id, quantity: line.quantity, modifier_ids: line.modifiers.map(function (m) { return m.id; }) };
      if (line.note) entry.note = line.note;
      return entry;
    });
  }

  async function quote() {
    try {
      var answer = await call('POST', '/orders/quote', cartBody());
      $('cart-sats').textContent = '(' + Math.ceil(answer.required_msat / 1000).toLocaleString('en-US') + ' sats)';
    } catch (err) {
      showError(err.message);
    }
  }

  var statusText = {
    pending: 'Waiting for payment…',
    paid: 'Paid — thank you! The kitchen has your order.',
    accepted: 'The kitchen accepted your order.',
    ready: 'Your order is ready.',
    completed: 'Enjoy your meal!',
    canceled: 'This order was canceled.',
    refunded: 'This order was refunded.',
    expired: 'The invoice expired before it was paid.'
  };
  var finalStatuses = ['completed', 'canceled', 'refunded', 'expired'];

  function showStatus(status) {
    var line = $('order-status');
    line.dataset.status = status;
    line.textContent = statusText[status] || status;
    var done = status !== 'pending';
    $('qr').hidden = done;
    $('bolt11').hidden = done;
    $('copy').hidden = done;
    $('open-wallet').hidden = done;
    $('new-order').hidden = !done;
  }

  function showInvoice(order) {
    var bolt11 = order.payment_request;
    $('qr').innerHTML = qrCodeSvg('LIGHTNING:' + bolt11.toUpperCase());
    $('invoice-link').href = 'lightning:' + bolt11;
    $('open-wallet').href = 'lightning:' + bolt11;
    $('bolt11').value = bolt11;
    $('invoice').dataset.orderId = order.id;
    var sats = Math.ceil(order.required_msat / 1000).toLocaleString('en-US') + ' sats';
    $('invoice-amount').textContent = order.currency === 'sat' ? sats : sats + ' (' + order.subtotal + ' ' + order.currency + ')';
    $('invoice').hidden = false;
    showStatus(order.status);
    $('invoice').scrollIntoView({ block: 'start' });
    poll(order.id, order.status);
  }

  function poll(orderId, status) {
    clearTimeout(pollTimer);
    if (finalStatuses.indexOf(status) >= 0) return;
    pollTimer = setTimeout(async function () {
      var next = status;
      try {
        var order = await call('GET', '/orders/' + encodeURIComponent(orderId));
        next = order.status;
        showStatus(next);
      } catch (err) {
        // A dropped connection is retried on the next tick; the order itself is safe on the server.
      }
      poll(orderId, next);
    }, status === 'pending' ? 1000 : 5000);
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest('[data-add]');
    if (!button) return;
    var item = items[button.getAttribute('data-add')];
    if (item.modifier_groups.length) openOptions(item);
    else addLine(item, [], 1, '');
  });

  $('options-cancel').onclick = function () { $('options').close(); };
  $('options-form').addEventListener('submit', function (event) {
    var result = chosenInDialog();
    var quantity = Math.max(1, Math.min(99, parseInt($('options-quantity').value, 10) || 1));
    if (result.problem) {
      event.preventDefault();
      $('options-error').textContent = result.problem;
      $('options-error').hidden = false;
      return;
    }
    addLine(editing, result.chosen, quantity, $('options-note').value.trim());
  });

  $('checkout').addEventListener('submit', async function (event) {
    event.preventDefault();
    var button = $('place-order');
    button.disabled = true;
    showError('');
    try {
      var body = { restaurant_id: restaurant.id, items: cartBody() };
      var table = $('table').value.trim();
      var note = $('customer-note').value.trim();
      if (table) body.table = table;
      if (note) body.customer_note = note;
      var placed = await call('POST', '/orders', body);
      history.replaceState(null, '', '#order=' + placed.order.id);
      // The cart became the order: emptied, so a second click cannot place it twice.
      cart = [];
      renderCart();
      showInvoice(placed.order);
    } catch (err) {
      showError(err.message);
    } finally {
      button.disabled = false;
    }
  });

  $('copy').onclick = async function () {
    try { await navigator.clipboard.writeText($('bolt11').value); $('copy').textContent = 'Copied'; }
    catch (e) { $('bolt11').select(); }
  };

  $('new-order').onclick = function () {
    clearTimeout(pollTimer);
    cart = [];
    renderCart();
    $('invoice').hidden = true;
    history.replaceState(null, '', location.pathname);
    window.scrollTo(0, 0);
  };

  // A reload while paying keeps the invoice: the order id rides in the fragment.
  var resumed = /^#order=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (resumed) call('GET', '/orders/' + resumed[1]).then(showInvoice, function () { history.replaceState(null, '', location.pathname); });
  renderCart();
})();
`
