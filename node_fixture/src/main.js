'use strict';

const { cartTotal, formatCents } = require('./cart.js');

const items = [
  { name: 'coffee', cents: 450, quantity: 2 },
  { name: 'croissant', cents: 275, quantity: 1 },
];

console.log(`Total: ${formatCents(cartTotal(items))}`);
