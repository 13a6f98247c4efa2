//! An optional row id in 4 bytes, for the columns of the most numerous rows.

/// `Option<u32>` takes 8 bytes; this takes 4, with `u32::MAX` standing for none. No table
/// reaches that id: it would take 4 G rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptId(u32);

impl OptId {
    pub const NONE: OptId = OptId(u32::MAX);

    pub fn get(self) -> Option<u32> {
        (self != Self::NONE).then_some(self.0)
    }
    pub fn is_none(self) -> bool {
        self == Self::NONE
    }
    pub fn is_some(self) -> bool {
        !self.is_none()
    }
}

impl Default for OptId {
    fn default() -> Self {
        Self::NONE
    }
}

impl From<Option<u32>> for OptId {
    fn from(id: Option<u32>) -> Self {
        match id {
            Some(i) => {
                debug_assert!(i != u32::MAX, "row id {i} is the none sentinel");
                OptId(i)
            }
            None => Self::NONE,
        }
    }
}

impl From<u32> for OptId {
    fn from(id: u32) -> Self {
        Some(id).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_id_but_the_sentinel() {
        for id in [None, Some(0), Some(1), Some(u32::MAX - 1)] {
            assert_eq!(OptId::from(id).get(), id);
        }
        assert!(OptId::default().is_none() && OptId::from(7).is_some());
        assert_eq!(size_of::<OptId>(), 4);
    }
}
