//! The resources, resource templates and prompts the example serves: the fixture set
//! the official conformance suite (`@modelcontextprotocol/conformance`) reads, plus a
//! text of the example's own.

use crate::mcp::types::{
    BlobResourceContents, ContentBlock, EmbeddedResource, EmbeddedResourceType, GetPromptResult,
    ImageContent, ImageContentType, Prompt, PromptArgument, PromptMessage, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate, Role, TextContent, TextContentType,
    TextResourceContents,
};
use serde_json::json;
use std::collections::BTreeMap;

/// A 1×1 red PNG, base64.
pub(crate) const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file with one silent sample, base64.
pub(crate) const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
/// The resource whose changes a subscriber is told.
pub(crate) const WATCHED: &str = "test://watched-resource";

fn resource(uri: &str, name: &str, title: &str, description: &str, mime: &str) -> Resource {
    Resource {
        uri: uri.to_owned(),
        name: name.to_owned(),
        title: Some(title.to_owned()),
        description: Some(description.to_owned()),
        mime_type: Some(mime.to_owned()),
        size: None,
        icons: None,
        annotations: None,
        meta: None,
    }
}

/// What `resources/list` gives.
pub(crate) fn resources() -> Vec<Resource> {
    vec![
        resource(
            "test://static-text",
            "static-text",
            "Static Text Resource",
            "A static text resource.",
            "text/plain",
        ),
        resource(
            "test://static-binary",
            "static-binary",
            "Static Binary Resource",
            "A static binary resource (a PNG image).",
            "image/png",
        ),
        resource(
            WATCHED,
            "watched-resource",
            "Watched Resource",
            "A resource a client may subscribe to.",
            "text/plain",
        ),
    ]
}

/// What `resources/templates/list` gives.
pub(crate) fn templates() -> Vec<ResourceTemplate> {
    vec![ResourceTemplate {
        uri_template: "test://template/{id}/data".to_owned(),
        name: "template".to_owned(),
        title: Some("Resource Template".to_owned()),
        description: Some("Data by id: the id is substituted into the JSON read.".to_owned()),
        mime_type: Some("application/json".to_owned()),
        icons: None,
        annotations: None,
        meta: None,
    }]
}

pub(crate) fn text_contents(uri: &str, mime: &str, text: String) -> ResourceContents {
    ResourceContents::TextResourceContents(TextResourceContents {
        uri: uri.to_owned(),
        mime_type: Some(mime.to_owned()),
        text,
        meta: None,
    })
}

/// The contents of the resource `uri`, if there is one.
pub(crate) fn read(uri: &str) -> Option<ReadResourceResult> {
    let contents = match uri {
        "test://static-text" => text_contents(
            uri,
            "text/plain",
            "This is the content of the static text resource.".to_owned(),
        ),
        "test://static-binary" => ResourceContents::BlobResourceContents(BlobResourceContents {
            uri: uri.to_owned(),
            mime_type: Some("image/png".to_owned()),
            blob: PNG.to_owned(),
            meta: None,
        }),
        WATCHED => text_contents(uri, "text/plain", "Watched resource content".to_owned()),
        _ => {
            let id = uri
                .strip_prefix("test://template/")?
                .strip_suffix("/data")
                .filter(|id| !id.is_empty() && !id.contains('/'))?;
            let data =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            text_contents(uri, "application/json", data.to_string())
        }
    };
    Some(ReadResourceResult {
        contents: vec![contents],
        meta: None,
    })
}

fn argument(name: &str, description: &str) -> PromptArgument {
    PromptArgument {
        name: name.to_owned(),
        title: None,
        description: Some(description.to_owned()),
        required: Some(true),
    }
}

fn prompt(name: &str, title: &str, description: &str, arguments: Vec<PromptArgument>) -> Prompt {
    Prompt {
        name: name.to_owned(),
        title: Some(title.to_owned()),
        description: Some(description.to_owned()),
        arguments: Some(arguments).filter(|a| !a.is_empty()),
        icons: None,
        meta: None,
    }
}

/// What `prompts/list` gives.
pub(crate) fn prompts() -> Vec<Prompt> {
    vec![
        prompt(
            "test_simple_prompt",
            "Simple Test Prompt",
            "A prompt without arguments.",
            vec![],
        ),
        prompt(
            "test_prompt_with_arguments",
            "Prompt With Arguments",
            "A prompt with two required arguments.",
            vec![
                argument("arg1", "First test argument"),
                argument("arg2", "Second test argument"),
            ],
        ),
        prompt(
            "test_prompt_with_embedded_resource",
            "Prompt With Embedded Resource",
            "A prompt that includes a resource.",
            vec![argument("resourceUri", "URI of the resource to embed")],
        ),
        prompt(
            "test_prompt_with_image",
            "Prompt With Image",
            "A prompt that includes an image.",
            vec![],
        ),
    ]
}

pub(crate) fn text(text: impl Into<String>) -> ContentBlock {
    ContentBlock::TextContent(TextContent {
        r#type: TextContentType::Text,
        text: text.into(),
        annotations: None,
        meta: None,
    })
}

pub(crate) fn image() -> ContentBlock {
    ContentBlock::ImageContent(ImageContent {
        r#type: ImageContentType::Image,
        data: PNG.to_owned(),
        mime_type: "image/png".to_owned(),
        annotations: None,
        meta: None,
    })
}

pub(crate) fn embedded(contents: ResourceContents) -> ContentBlock {
    ContentBlock::EmbeddedResource(EmbeddedResource {
        r#type: EmbeddedResourceType::Resource,
        resource: contents,
        annotations: None,
        meta: None,
    })
}

fn user(content: ContentBlock) -> PromptMessage {
    PromptMessage {
        role: Role::User,
        content,
    }
}

/// The prompt `name` filled in with `arguments`; `Err` says what is missing or unknown.
pub(crate) fn get_prompt(
    name: &str,
    arguments: &BTreeMap<String, String>,
) -> Result<GetPromptResult, String> {
    let arg = |key: &str| {
        arguments
            .get(key)
            .cloned()
            .ok_or_else(|| format!("prompt {name}: argument `{key}` is required"))
    };
    let messages = match name {
        "test_simple_prompt" => vec![user(text("This is a simple prompt for testing."))],
        "test_prompt_with_arguments" => vec![user(text(format!(
            "Prompt with arguments: arg1='{}', arg2='{}'",
            arg("arg1")?,
            arg("arg2")?
        )))],
        "test_prompt_with_embedded_resource" => vec![
            user(embedded(text_contents(
                &arg("resourceUri")?,
                "text/plain",
                "Embedded resource content for testing.".to_owned(),
            ))),
            user(text("Please process the embedded resource above.")),
        ],
        "test_prompt_with_image" => {
            vec![user(image()), user(text("Please analyze the image above."))]
        }
        _ => return Err(format!("unknown prompt: {name}")),
    };
    Ok(GetPromptResult {
        description: None,
        messages,
        meta: None,
    })
}
