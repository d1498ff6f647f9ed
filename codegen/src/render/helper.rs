//! A user's Rust helper for the templates, kept in [`Settings`](crate::Settings) (which
//! is `Clone` and `Debug`) and registered with every registry the generator builds.

use std::fmt;
use std::sync::Arc;

use handlebars::{
    Context, Handlebars, Helper, HelperDef, HelperResult, Output, RenderContext, RenderError,
    ScopedJson,
};

/// A handlebars helper written in Rust, as registered with
/// [`Builder::helper`](crate::Builder::helper): any [`HelperDef`] (a struct, a function
/// of the right signature, or one made by [`handlebars::handlebars_helper!`]), shared
/// by every rendering of the run.
#[derive(Clone)]
pub struct TemplateHelper(Arc<dyn HelperDef + Send + Sync>);

impl TemplateHelper {
    /// Wraps `helper`.
    pub fn new(helper: impl HelperDef + Send + Sync + 'static) -> Self {
        TemplateHelper(Arc::new(helper))
    }
}

impl fmt::Debug for TemplateHelper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TemplateHelper(..)")
    }
}

impl HelperDef for TemplateHelper {
    fn call_inner<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        r: &'reg Handlebars<'reg>,
        ctx: &'rc Context,
        rc: &mut RenderContext<'reg, 'rc>,
    ) -> Result<ScopedJson<'rc>, RenderError> {
        self.0.call_inner(h, r, ctx, rc)
    }

    fn call<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        r: &'reg Handlebars<'reg>,
        ctx: &'rc Context,
        rc: &mut RenderContext<'reg, 'rc>,
        out: &mut dyn Output,
    ) -> HelperResult {
        self.0.call(h, r, ctx, rc, out)
    }
}
