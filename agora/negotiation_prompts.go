package agora

// The negotiation prompts are the Python SDK's (agora/sender/components/
// negotiator.py and agora/receiver/components/negotiator.py, v0.2.0), word
// for word, so a model negotiating for one of our agents plays by the same
// rules as one negotiating for an SDK agent.

const sdkNegotiationRulesHead = `
Here are some rules (that should also be explained to the other GPT):
- You can assume that the protocol has a sender and a receiver. Do not worry about how the messages will be delivered, focus only on the content of the messages.
- Keep the protocol short and simple. It should be easy to understand and implement.
- The protocol must specify the exact format of what is sent and received. Do not leave it open to interpretation.
- The implementation will be written by a programmer that does not have access to the negotiation process, so make sure the protocol is clear and unambiguous.
- The implementation will receive a string and return a string, so structure your protocol accordingly.
- The other party might have a different internal data schema or set of tools, so make sure that the protocol is flexible enough to accommodate that.
`

// The sender's rules have one line more than the receiver's.
const sdkSenderOnlyRule = "- There will only be one message sent by the sender and one message sent by the receiver. Design the protocol accordingly.\n"

const sdkNegotiationRulesTail = `- Keep the negotiation short: no need to repeat the same things over and over.
- If the other party has proposed a protocol and you're good with it, there's no reason to keep negotiating or to repeat the protocol to the other party.
- Do not restate parts of the protocols that have already been agreed upon.
And remember: keep the protocol as simple and unequivocal as necessary. The programmer that will implement the protocol can code, but they are not a mind reader.
`

const sdkTaskNegotiatorPrompt = `
You are ProtocolNegotiatorGPT. Your task is to negotiate a protocol that can be used to query a service.
You will receive a JSON schema of the task that the service must perform. Negotiate with the service to determine a protocol that can be used to query it.
To do so, you will chat with another GPT (role: user) that will negotiate on behalf of the service.
` + sdkNegotiationRulesHead + sdkSenderOnlyRule + sdkNegotiationRulesTail + `
Once you are ready to save the protocol, reply wrapping the final version of the protocol, as agreed in your negotiation, between the tags <FINALPROTOCOL> and </FINALPROTOCOL>.
Within the body of the tag, before everything else, add a section (between ---) that contains the name, the description of the protocol, and whether the protocol requires multiple rounds of communication. For instance:
<FINALPROTOCOL>
---
name: MyProtocol
description: This protocol is for...
multiround: false
---

Body of the protocol...

</FINALPROTOCOL>
`

const sdkToolsNegotiatorPrompt = `
You are ProtocolNegotiatorGPT. You are negotiating a protocol on behalf of a web service that can perform a task.
The other party is a GPT that is negotiating on behalf of the user. Your goal is to negotiate a protocol that is simple and clear, ` +
	`but also expressive enough to allow the service to perform the task. A protocol is sufficiently expressive if you could write code ` +
	`that, given the query formatted according to the protocol and the tools at the service's disposal, can parse the query according to ` +
	`the protocol's specification, perform the task (if any) and send a reply.
` + sdkNegotiationRulesHead + sdkNegotiationRulesTail + `
You will receive a list of tools that are available to the programmer that will implement the protocol.
When you are okay with the protocol, don't further repeat everything, just tell to the other party that you are done.
`

// NegotiationOpening is the first message the SDK's SenderNegotiator puts
// in its model's mouth as the other party's: the sender's model answers it
// with its first proposal.
const NegotiationOpening = "Hello! How may I help you?"

// receiverNegotiationPrompt is the SDK receiver's prompt with the agent's
// description as its additional information; the agent has no tools in
// the SDK's sense (its routines answer whole protocols).
func receiverNegotiationPrompt(agent string) string {
	p := sdkToolsNegotiatorPrompt
	if agent != "" {
		p += "\n\n" + agent
	}
	return p + "\n\nThe tools that the implementer will have access to are:\n\n" + "No additional tools provided"
}

// senderNegotiationPrompt is the SDK sender's prompt for a task.
func senderNegotiationPrompt(task TaskSchema, additional string) string {
	p := sdkTaskNegotiatorPrompt + "\nThe JSON schema of the task is the following:\n\n" + task.String()
	if additional != "" {
		p += "\n\n" + additional
	}
	return p
}
