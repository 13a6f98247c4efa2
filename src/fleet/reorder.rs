//! Results that finish out of order handed on in input order (`--sort`), each as soon as
//! every earlier one is out, so sorted output still streams.

use std::collections::BTreeMap;

pub struct Reorder<T> {
    next: usize,
    pending: BTreeMap<usize, T>,
}

impl<T> Default for Reorder<T> {
    fn default() -> Self {
        Self {
            next: 0,
            pending: BTreeMap::new(),
        }
    }
}

impl<T> Reorder<T> {
    /// Takes result `index` and returns those now ready, in order.
    pub fn push(&mut self, index: usize, item: T) -> Vec<T> {
        self.pending.insert(index, item);
        let mut ready = Vec::new();
        while let Some(t) = self.pending.remove(&self.next) {
            ready.push(t);
            self.next += 1;
        }
        ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_each_item_once_its_predecessors_are_out() {
        let mut r = Reorder::default();
        assert!(r.push(2, 'c').is_empty());
        assert_eq!(r.push(0, 'a'), ['a']);
        assert_eq!(r.push(1, 'b'), ['b', 'c']);
        assert_eq!(r.push(3, 'd'), ['d']);
    }
}
