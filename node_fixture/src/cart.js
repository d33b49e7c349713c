'use strict';

// Prices are whole cents: floating-point euros would round 0.1 + 0.2 wrongly.
function lineTotal(item) {
  if (!Number.isInteger(item.cents) || item.cents < 0) {
    throw new RangeError(`price of ${item.name} must be whole, non-negative cents`);
  }
  if (!Number.isInteger(item.quantity) || item.quantity < 1) {
    throw new RangeError(`quantity of ${item.name} must be a whole number of at least 1`);
  }
  return item.cents * item.quantity;
}

function cartTotal(items) {
  return items.reduce((sum, item) => sum + lineTotal(item), 0);
}

function formatCents(cents) {
  const euros = Math.floor(cents / 100);
  const rest = String(cents % 100).padStart(2, '0');
  return `${euros}.${rest} EUR`;
}

module.exports = { lineTotal, cartTotal, formatCents };
