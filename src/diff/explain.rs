//! `kbuild diff --explain`: for each changed field, where its value came from on the new
//! side (the entry, patch or file that last set it), or, for a field the new side no
//! longer has, what set it on the old side. The sides must be built with provenance
//! (`BuildOptions::provenance`); resources read from YAML files have none, and their
//! fields are left unexplained.

use super::{DiffResult, Side, Status};
use crate::explain::report::{Locator, Position};
use crate::resource::Resource;
use crate::resource::id::ResId;

impl DiffResult {
    /// Fills each changed entry's `why`; positions are shown by `show` (for example
    /// relative to the current directory).
    pub fn explain(
        &mut self,
        old: &Side,
        new: &Side,
        loc: &mut Locator<'_>,
        show: &dyn Fn(&Position) -> String,
    ) {
        fn find<'s>(side: &'s Side, id: Option<&ResId>) -> Option<&'s Resource> {
            let id = id?;
            side.resources.iter().find(|r| &r.id() == id)
        }
        for e in self
            .entries
            .iter_mut()
            .filter(|e| e.status == Status::Changed)
        {
            let new_r = find(new, e.new.as_ref());
            let old_r = find(old, e.old.as_ref());
            for path in &e.paths {
                let field = crate::explain::field(path);
                let step = [new_r, old_r].into_iter().flatten().find_map(|r| {
                    let p = r.provenance.as_deref()?;
                    field.lookup(r.node())?;
                    crate::explain::report::why(r.node(), p, &field, loc)
                });
                if let Some(step) = step {
                    e.why.push((path.clone(), step.summary(show)));
                }
            }
        }
    }
}
