package dev.postbox.smoke;

import dev.postbox.relay.EventBus;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
class SmokeController {

    private final Orders orders;
    private final Tasks tasks;

    SmokeController(Orders orders, Tasks tasks) {
        this.orders = orders;
        this.tasks = tasks;
    }

    @PostMapping("/orders/{orderNo}")
    ResponseEntity<String> place(@PathVariable("orderNo") String orderNo,
                                 @RequestParam(name = "channel", defaultValue = EventBus.CHANNEL) String channel,
                                 @RequestParam(name = "fail", defaultValue = "false") boolean fail) {
        orders.place(orderNo, channel, fail);
        return ResponseEntity.status(HttpStatus.CREATED).body(orderNo);
    }

    @PostMapping("/tasks/{taskNo}")
    ResponseEntity<String> submit(@PathVariable("taskNo") String taskNo) {
        tasks.submit(taskNo);
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(taskNo);
    }

    @ExceptionHandler(IllegalStateException.class)
    ResponseEntity<String> refused(IllegalStateException e) {
        return ResponseEntity.status(HttpStatus.UNPROCESSABLE_ENTITY).body(e.getMessage());
    }
}
