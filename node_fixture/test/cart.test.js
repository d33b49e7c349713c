'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { lineTotal, cartTotal, formatCents } = require('../src/cart.js');

test('a line costs its price times its quantity', () => {
  assert.equal(lineTotal({ name: 'tea', cents: 300, quantity: 3 }), 900);
});

test('a cart adds up its lines', () => {
  const items = [
    { name: 'coffee', cents: 450, quantity: 2 },
    { name: 'croissant', cents: 275, quantity: 1 },
  ];
  assert.equal(cartTotal(items), 1175);
});

test('an empty cart costs nothing', () => {
  assert.equal(cartTotal([]), 0);
});

test('a price that is not whole cents is refused', () => {
  assert.throws(() => lineTotal({ name: 'gum', cents: 0.5, quantity: 1 }), RangeError);
});

test('cents are shown as euros with two digits', () => {
  assert.equal(formatCents(1175), '11.75 EUR');
  assert.equal(formatCents(5), '0.05 EUR');
});
