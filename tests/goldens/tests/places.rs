//! Where a value that does not fit is said to break the document, on the project's
//! petstore (`schemas/petstore.json`, its golden `schemas_petstore`): the dispatcher's
//! `-32602`, a single call's decode error and a batch handle's cite the schema with its
//! `file:line:col` from the module's table of places.

use rpcsmith::client::{Client, Delivery, SendFuture, Transport};
use rpcsmith::server::{Context, Failure, Server};
use rpcsmith_goldens::services::schemas_petstore::{
    AddPetResult, GetPetError, GetPetResult, ListPetsResult, PetstoreClient, PetstoreDispatcher,
    PetstoreServer, types,
};
use serde_json::{Value, json};

/// Line 50, column 7 of `schemas/petstore.json` is where `"Kind"` is written under
/// `components/schemas` (checked by hand).
const KIND: &str = "(schema #/components/schemas/Kind at petstore.json:50:7)";

/// A store that never gets as far as its handlers in these tests.
struct Store;

impl PetstoreServer for Store {
    async fn add_pet(
        &self,
        _: Context,
        _: String,
        _: types::Kind,
        _: Option<Vec<String>>,
    ) -> Result<AddPetResult, Failure> {
        Err(Failure::Object(
            rpcsmith::protocol::ErrorObject::internal_error(),
        ))
    }
    async fn list_pets(
        &self,
        _: Context,
        _: types::Kind,
        _: Option<u32>,
    ) -> Result<ListPetsResult, Failure> {
        Ok(Vec::new())
    }
    async fn get_pet(
        &self,
        _: Context,
        _: types::PetId,
    ) -> Result<GetPetResult, Failure<GetPetError>> {
        Err(Failure::Object(
            rpcsmith::protocol::ErrorObject::internal_error(),
        ))
    }
    async fn pet_visited(&self, _: Context, _: types::PetId) {}
}

#[tokio::test]
async fn a_bad_param_cites_its_schema_with_its_position() {
    let server = Server::new(PetstoreDispatcher::new(Store));
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "add_pet",
        "params": {"name": "rex", "kind": "fish"}});
    let answer = server
        .handle(call.to_string().as_bytes(), Default::default())
        .await
        .expect("answered");
    let answer: Value = serde_json::from_slice(&answer).expect("JSON");
    assert_eq!(answer["error"]["code"], -32602);
    assert_eq!(
        answer["error"]["message"],
        format!(
            "invalid param `kind`: expected one of \"cat\", \"dog\", \"bird\", \
             found a string \"fish\" {KIND}"
        )
    );
}

/// Answers every call of a batch with the same pet, whose kind the document lacks.
struct Fishy;

impl Transport for Fishy {
    fn send(&self, message: bytes::Bytes) -> SendFuture<'_> {
        let calls: Vec<Value> = serde_json::from_slice(&message).expect("a batch");
        let pet = json!({"id": 1, "name": "nemo", "kind": "fish"});
        let answers: Vec<Value> = calls
            .iter()
            .map(|c| json!({"jsonrpc": "2.0", "id": c["id"], "result": pet}))
            .collect();
        let body = bytes::Bytes::from(Value::from(answers).to_string());
        Box::pin(async move { Ok(Delivery::Answer(body)) })
    }

    fn is_request_response(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn a_batch_handle_cites_its_schema_with_its_position() {
    let client = PetstoreClient::new(Client::new(Fishy));
    let mut batch = client.batch();
    let pet = batch.get_pet(1);
    let mut replies = batch.send().await.expect("sent");
    let error = replies.take(pet).expect_err("a fish is no kind");
    assert_eq!(
        error.to_string(),
        format!(
            "could not decode result at /kind: expected one of \"cat\", \"dog\", \"bird\", \
             found a string \"fish\" {KIND}"
        )
    );
}

/// Answers a single call with a pet whose kind the document lacks.
struct FishyOne;

impl Transport for FishyOne {
    fn send(&self, message: bytes::Bytes) -> SendFuture<'_> {
        let call: Value = serde_json::from_slice(&message).expect("a call");
        let pet = json!({"id": 1, "name": "nemo", "kind": "fish"});
        let answer = json!({"jsonrpc": "2.0", "id": call["id"], "result": pet});
        let body = bytes::Bytes::from(answer.to_string());
        Box::pin(async move { Ok(Delivery::Answer(body)) })
    }

    fn is_request_response(&self) -> bool {
        true
    }
}

/// The generated method passes its wire name as a literal, so the method's place is looked
/// up only now that the result fails to decode: the message is a batch handle's.
#[tokio::test]
async fn a_single_call_cites_its_schema_with_its_position() {
    let client = PetstoreClient::new(Client::new(FishyOne));
    // The call's future borrows nothing: it outlives the client's handle.
    let call = client.get_pet(1);
    drop(client);
    let error = call.await.expect_err("a fish is no kind");
    assert_eq!(
        error.to_string(),
        format!(
            "could not decode result at /kind: expected one of \"cat\", \"dog\", \"bird\", \
             found a string \"fish\" {KIND}"
        )
    );
}
